// SMS campaigns to a list (API.md 4.11.1 POST /sms/campaigns) sent to a test SMSC: each number's text rendered
// with its variables and priced by its parts, blacklisted and inactive numbers left out and unpaid, another
// account's list not found, `use_dynamic_list` topping up at the sending time (paid plans only), manual
// moderation holding a campaign until approved or rejected, a disabled account's campaign canceled and paid
// back; and the request variants of COMPAT.md "SMS and Viber" 6–10 on the campaign routes; on both databases.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { InjectOptions } from 'fastify'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { snapshotDatabase, type TestAccount } from '../../helpers/factories.js'
import { activeSender } from '../../helpers/senders.js'
import { balanceMicros, smsCampaignInfo, smsDispatcher, smsSetup, waitFor, testSmppChannel, type SmsSetup } from '../../helpers/sms.js'
import { startSmsc, type Smsc } from '../../helpers/smsc.js'
import type { SmsChannel } from '../../../src/delivery/sms/channel.js'
import { JobRunner } from '../../../src/dispatcher/jobs.js'
import { smsJobHandlers } from '../../../src/services/sms/dynamic-list.js'
import { approveCampaign, rejectCampaign } from '../../../src/services/email/campaigns.js'
import { disableAccount } from '../../../src/services/accounts/account-lifecycle.js'
import { CAMPAIGN_STATUS } from '../../../src/storage/repos/campaigns.js'
import { toWireDate } from '../../../src/lib/wire-date.js'

// One part: 0.015 to a Ukrainian number (0.03 by the international route), 0.02 elsewhere.
const PRICES = 'default=0.02,UA=0.015,UA:international=0.03'
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const HOUR = 3_600_000
/** 72 Cyrillic characters: two UCS-2 parts, or one GSM-7 part transliterated. */
const CYRILLIC = 'Привіт'.repeat(12)
/** `count` numbers from `first`, as strings. */
const numbers = (count: number, first: number) => Array.from({ length: count }, (_, i) => String(first + i))

for (const dialect of DIALECTS) {
  describe(`SMS campaigns to a list on ${dialect}`, () => {
    let t: TestApp
    let setup: SmsSetup
    let smsc: Smsc
    let channel: SmsChannel
    let lists = 0

    before(async () => {
      t = await startTestApp(dialect, { smsPrices: PRICES, publicUrl: 'https://news.example.org' })
      setup = await smsSetup(t)
      smsc = await startSmsc()
      channel = testSmppChannel(smsc)
    })
    after(async () => {
      await channel.close()
      await smsc.close()
      await t.close()
    })

    const call = (options: InjectOptions, account = setup.account) => t.call(account, options)
    const newList = async (phones: string[], account = setup.account) => {
      const book = await call({ method: 'POST', url: '/addressbooks', payload: { bookName: `SMS list ${++lists}` } }, account)
      assert.equal(book.statusCode, 200, book.body)
      const id = book.json<{ id: number }>().id
      if (phones.length > 0) await addNumbers(id, phones, account)
      return id
    }
    const addNumbers = async (bookId: number, phones: string[], account = setup.account) => {
      const added = await call({ method: 'POST', url: '/sms/numbers', payload: { addressBookId: bookId, phones } }, account)
      assert.equal(added.statusCode, 200, added.body)
      assert.equal(added.json<{ counters: { added: number } }>().counters.added, phones.length)
    }
    const blacklist = async (phones: string[], account = setup.account) => {
      const added = await call({ method: 'POST', url: '/sms/black_list', payload: { phones, description: 'asked to stop' } }, account)
      assert.equal(added.statusCode, 200, added.body)
    }
    const createFromList = async (fields: Record<string, unknown>, account = setup.account, sender = setup.sender) => {
      const created = await call({ method: 'POST', url: '/sms/campaigns', payload: { sender, body: 'Sale today', ...fields } }, account)
      assert.equal(created.statusCode, 200, created.body)
      return created.json<{ result: boolean; campaign_id: number }>().campaign_id
    }
    /** Sends every due number to the SMSC (the bind is made on the first send). */
    const sendDue = async (jobs?: JobRunner) => {
      const dispatcher = smsDispatcher(t, channel)
      for (;;) {
        const ran = (await jobs?.runDue()) ?? 0
        if (ran === 0 && (await dispatcher.drain()) === 0) return
      }
    }
    /** Texts the SMSC accepted for these numbers, by number. */
    const received = (phones: string[]) => {
      const out: Record<string, string[]> = {}
      for (const m of smsc.messages()) if (phones.includes(m.destination)) (out[m.destination] ??= []).push(m.text)
      return out
    }
    const statusOf = async (id: number) => (await t.deps.db.selectFrom('campaigns').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status
    const numbersOf = async (id: number, account = setup.account) => (await smsCampaignInfo(t, account, id)).task_phones_info.map((n) => [String(n.phone), n.status, n.money_spent])

    it("renders each number's text with its variables and prices its parts; blacklisted and inactive numbers are never sent nor paid", async () => {
      const [ann, long, yulia, bare, stopped, unconfirmed] = ['380631000001', '380631000002', '447400000003', '380631000004', '380631000005', '380631000006']
      const bookId = await newList([bare!])
      const withVariables = await call({
        method: 'POST',
        url: '/sms/numbers/variables',
        payload: {
          addressBookId: bookId,
          phones: { [ann!]: [[{ name: 'name', type: 'string', value: 'Ann' }]], [long!]: [[{ name: 'name', value: 'B'.repeat(160) }]], [yulia!]: [{ name: 'name', value: 'Юлія' }], [stopped!]: [[{ name: 'name', value: 'Stop' }]] },
        },
      })
      assert.deepEqual(withVariables.json(), { result: true, counters: { added: 4, exceptions: 0, exists: 0 } })
      await blacklist([stopped!])
      // A contact awaiting its double opt-in: its number is in the list, not active.
      await activeSender(t, setup.account, 'owner@news.example.org')
      const optIn = await call({
        method: 'POST',
        url: `/addressbooks/${bookId}/emails`,
        payload: { confirmation: 'force', message_lang: 'en', sender_email: 'owner@news.example.org', emails: [{ email: 'wait@example.com', variables: { Phone: unconfirmed, name: 'Wait' } }] },
      })
      assert.equal(optIn.statusCode, 200, optIn.body)
      const inList = await t.deps.db.selectFrom('list_phones').select(['phone', 'status']).where('address_book_id', '=', bookId).orderBy('phone').execute()
      assert.deepEqual(inList.map((n) => [n.phone, n.status]), [[ann, 1], [long, 1], [bare, 1], [stopped, 1], [unconfirmed, 2], [yulia, 1]])

      const balance = await balanceMicros(t, setup.account)
      const id = await createFromList({ addressBookId: bookId, body: 'Hi {{name}}' })
      // Ann and the bare number: one part at 0.015; "Hi " + 160 letters: two parts; "Hi Юлія" UCS-2, one part at 0.02.
      assert.deepEqual(await numbersOf(id), [
        [bare, 0, 0.015],
        [ann, 0, 0.015],
        [long, 0, 0.03],
        [yulia, 0, 0.02],
      ])
      assert.equal(balance - (await balanceMicros(t, setup.account)), 80_000, 'the four numbers written off, nothing for the other two')
      const info = await smsCampaignInfo(t, setup.account, id)
      assert.deepEqual([info.address_book_id, info.company_price], [bookId, 0.08])

      await sendDue()
      const all = [ann!, long!, yulia!, bare!, stopped!, unconfirmed!]
      assert.deepEqual(received(all), { [bare!]: ['Hi '], [ann!]: ['Hi Ann'], [long!]: [`Hi ${'B'.repeat(160)}`], [yulia!]: ['Hi Юлія'] })
      assert.deepEqual(
        smsc.messages().filter((m) => all.includes(m.destination)).map((m) => [m.destination, m.parts.length, m.parts[0]!.dataCoding]),
        [[bare, 1, 0], [ann, 1, 0], [long, 2, 0], [yulia, 1, 8]],
      )
      await waitFor(async () => (await numbersOf(id)).every(([, status]) => status === 2))
      assert.deepEqual((await numbersOf(id)).map(([, status]) => status), [2, 2, 2, 2])
      assert.equal(balance - (await balanceMicros(t, setup.account)), 80_000, 'all delivered: nothing given back')
    })

    it("answers 404 for another account's list, on create and cost, and stores nothing", async () => {
      const other = await smsSetup(t, 'Other')
      const bookId = await newList(numbers(2, 380632000000))
      const before = await snapshotDatabase(t.deps)
      const created = await call({ method: 'POST', url: '/sms/campaigns', payload: { sender: 'Other', body: 'Hi', addressBookId: bookId } }, other.account)
      assert.equal(created.statusCode, 404, created.body)
      assert.deepEqual(created.json(), { error_code: 213, message: 'Book not found' })
      const cost = await call({ method: 'GET', url: '/sms/campaigns/cost', query: { sender: 'Other', body: 'Hi', addressBookId: String(bookId) } }, other.account)
      assert.equal(cost.statusCode, 404, cost.body)
      assert.deepEqual(await snapshotDatabase(t.deps), before)
    })

    it('use_dynamic_list: a number added after creation is sent and paid at the sending time; a free plan is refused', async () => {
      const [first, late, lateStopped] = numbers(3, 380633000000)
      const bookId = await newList([first!])
      await blacklist([lateStopped!])
      const balance = await balanceMicros(t, setup.account)
      const id = await createFromList({ addressBookId: bookId, use_dynamic_list: true, date: toWireDate(t.clock.now + HOUR) })
      assert.equal(balance - (await balanceMicros(t, setup.account)), 15_000, 'the one number of the list, paid at creation')
      await addNumbers(bookId, [late!, lateStopped!])
      const jobs = new JobRunner(t.deps, smsJobHandlers)
      await sendDue(jobs)
      assert.deepEqual(received([first!, late!]), {}, 'nothing before its time')
      assert.equal((await numbersOf(id)).length, 1)

      t.clock.advance(HOUR)
      const sendingTime = t.clock.now
      await sendDue(jobs)
      assert.deepEqual(received([first!, late!, lateStopped!]), { [first!]: ['Sale today'], [late!]: ['Sale today'] }, 'the late number too; the blacklisted one never')
      assert.deepEqual((await numbersOf(id)).map(([phone, , spent]) => [phone, spent]), [[first, 0.015], [late, 0.015]])
      const writeOffs = await t.deps.db.selectFrom('ledger_entries').select(['amount_micros', 'created_at']).where('account_id', '=', setup.account.id).where('note', '=', `sms campaign ${id}`).orderBy('id').execute()
      assert.deepEqual(writeOffs.map((e) => Number(e.amount_micros)), [-15_000, -15_000])
      assert.equal(Number(writeOffs[1]!.created_at), sendingTime, 'the late number paid at the sending time')
      assert.equal(balance - (await balanceMicros(t, setup.account)), 30_000)

      const free = await smsSetup(t, 'Free')
      await t.deps.db.updateTable('accounts').set({ plan: 'free' }).where('id', '=', free.account.id).execute()
      const freeBook = await newList([late!], free.account)
      const before = await snapshotDatabase(t.deps)
      const refused = await call({ method: 'POST', url: '/sms/campaigns', payload: { sender: 'Free', body: 'Hi', addressBookId: freeBook, use_dynamic_list: 1, date: toWireDate(t.clock.now + HOUR) } }, free.account)
      assert.equal(refused.statusCode, 403, refused.body)
      assert.equal(refused.json<{ error_code: number }>().error_code, 3030303030, 'dynamic lists need a paid plan')
      assert.deepEqual(await snapshotDatabase(t.deps), before)
    })

    it('disabling the account cancels its scheduled SMS campaign and pays it back', async () => {
      const owner = await smsSetup(t, 'Ending')
      const to = numbers(3, 380634000000)
      const bookId = await newList(to, owner.account)
      const balance = await balanceMicros(t, owner.account)
      const id = await createFromList({ addressBookId: bookId, date: toWireDate(t.clock.now + HOUR) }, owner.account, 'Ending')
      assert.equal(balance - (await balanceMicros(t, owner.account)), 45_000)
      await disableAccount(t.deps, owner.account.id)
      assert.equal(await statusOf(id), CAMPAIGN_STATUS.canceled)
      assert.equal(await balanceMicros(t, owner.account), balance, 'paid back')
      t.clock.advance(2 * HOUR)
      await sendDue()
      assert.deepEqual(received(to), {}, 'never sent')
    })

    it('reads PHP bracket forms, phones as a JSON string, emulate and transliterate as 0/1/booleans, and the Go zero date', async () => {
      const bookId = await newList(numbers(2, 380635000000))
      const [a, b] = numbers(2, 380635000000)
      // PHP: route[UA]=international prices a Ukrainian part at 0.03; the zero date means now.
      let balance = await balanceMicros(t, setup.account)
      const list = await call({ method: 'POST', url: '/sms/campaigns', headers: FORM, payload: `sender=${setup.sender}&addressBookId=${bookId}&body=Hi+there&route[UA]=international&date=0001-01-01+00%3A00%3A00&emulate=0` })
      assert.equal(list.statusCode, 200, list.body)
      assert.equal(balance - (await balanceMicros(t, setup.account)), 60_000)
      const phones = numbers(2, 380635100000)
      const sent = await call({ method: 'POST', url: '/sms/send', headers: FORM, payload: `sender=${setup.sender}&body=Hi&phones[0]=%2B${phones[0]}&phones[1]=${phones[1]}&route[UA]=international&transliterate=1` })
      assert.deepEqual(sent.json<{ counters: unknown }>().counters, { exceptions: 0, sends: 2 })
      assert.equal(balance - (await balanceMicros(t, setup.account)), 120_000)
      // npm, Python and PHP 1.x send phones as a JSON string.
      const json = await call({ method: 'POST', url: '/sms/send', payload: { sender: setup.sender, body: 'Hi', phones: JSON.stringify([Number(phones[0]), `+${phones[1]}`, 'junk']), date: '0001-01-01 00:00:00' } })
      assert.deepEqual(json.json<{ counters: unknown }>().counters, { exceptions: 1, sends: 2 })
      await sendDue()
      assert.deepEqual(received([a!, b!]), { [a!]: ['Hi there'], [b!]: ['Hi there'] }, 'the zero date sent at once')
      assert.deepEqual(received(phones), { [phones[0]!]: ['Hi', 'Hi'], [phones[1]!]: ['Hi', 'Hi'] })

      // emulate: "1", 1, true form a priced campaign never charged nor sent; "0", 0, false send it.
      for (const emulate of ['1', 1, true, '0', 0, false]) {
        balance = await balanceMicros(t, setup.account)
        const id = await createFromList({ addressBookId: bookId, emulate })
        const emulated = emulate === '1' || emulate === 1 || emulate === true
        assert.equal(await statusOf(id), emulated ? CAMPAIGN_STATUS.emulated : CAMPAIGN_STATUS.sending, `emulate ${JSON.stringify(emulate)}`)
        assert.equal(balance - (await balanceMicros(t, setup.account)), emulated ? 0 : 30_000, `emulate ${JSON.stringify(emulate)}`)
        if (!emulated) await call({ method: 'PUT', url: `/sms/campaigns/cancel/${id}` })
      }
      // transliterate: 72 Cyrillic characters are one GSM-7 part with "1", 1, true, two UCS-2 parts with "0", 0, false.
      for (const transliterate of ['1', 1, true, '0', 0, false]) {
        const id = await createFromList({ addressBookId: bookId, body: CYRILLIC, transliterate, emulate: true })
        const one = transliterate === '1' || transliterate === 1 || transliterate === true
        assert.deepEqual((await numbersOf(id)).map(([, , spent]) => spent), one ? [0.015, 0.015] : [0.03, 0.03], `transliterate ${JSON.stringify(transliterate)}`)
      }
    })

    it('prices the cost call from numbers when addressBookId is null, 0 or empty, and from the list when both are given', async () => {
      const bookId = await newList(numbers(3, 380636000000))
      const phones = JSON.stringify(['380636100000'])
      const cost = async (options: InjectOptions) => {
        const answer = await call(options)
        assert.equal(answer.statusCode, 200, `${options.url}: ${answer.body}`)
        return answer.json<{ result: boolean; data: { price: number; currency: string } }>().data
      }
      const base = { sender: setup.sender, body: 'Hi' }
      // npm: a JSON body on GET, addressBookId null when no list is meant.
      assert.deepEqual(await cost({ method: 'GET', url: '/sms/campaigns/cost', payload: { ...base, addressBookId: null, phones } }), { price: 0.015, currency: 'USD' })
      assert.equal((await cost({ method: 'GET', url: '/sms/campaigns/cost', payload: { ...base, addressBookId: 0, phones } })).price, 0.015)
      assert.equal((await cost({ method: 'GET', url: '/sms/campaigns/cost', query: { ...base, addressBookId: '', phones } })).price, 0.015)
      // Both given: the list (three numbers) wins.
      assert.equal((await cost({ method: 'GET', url: '/sms/campaigns/cost', payload: { ...base, addressBookId: bookId, phones } })).price, 0.045)
      assert.equal((await cost({ method: 'GET', url: '/sms/campaigns/cost', query: { ...base, addressBookId: String(bookId), phones } })).price, 0.045)
      // Python: the whole query a URL-encoded JSON object, phones a JSON string in it.
      const python = encodeURIComponent(JSON.stringify({ ...base, addressBookId: null, phones: JSON.stringify(['380636100000', '+380636100001']), route: { UA: 'international' } }))
      assert.equal((await cost({ method: 'GET', url: `/sms/campaigns/cost?${python}` })).price, 0.06)
      const pythonList = encodeURIComponent(JSON.stringify({ ...base, addressBookId: bookId, phones }))
      assert.equal((await cost({ method: 'GET', url: `/sms/campaigns/cost?${pythonList}` })).price, 0.045)
    })
  })

  describe(`manual moderation of SMS campaigns on ${dialect}`, () => {
    let t: TestApp
    let setup: SmsSetup
    let smsc: Smsc
    let channel: SmsChannel

    before(async () => {
      t = await startTestApp(dialect, { smsPrices: PRICES, moderation: 'manual' })
      setup = await smsSetup(t)
      smsc = await startSmsc()
      channel = testSmppChannel(smsc)
    })
    after(async () => {
      await channel.close()
      await smsc.close()
      await t.close()
    })

    const listOf = async (account: TestAccount, phones: string[]) => {
      const book = await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: `Moderated ${phones[0]}` } })
      const bookId = book.json<{ id: number }>().id
      const added = await t.call(account, { method: 'POST', url: '/sms/numbers', payload: { addressBookId: bookId, phones } })
      assert.equal(added.statusCode, 200, added.body)
      return bookId
    }
    const create = async (bookId: number) => {
      const created = await t.call(setup.account, { method: 'POST', url: '/sms/campaigns', payload: { sender: setup.sender, body: 'Sale today', addressBookId: bookId } })
      assert.equal(created.statusCode, 200, created.body)
      return created.json<{ campaign_id: number }>().campaign_id
    }
    const statusOf = async (id: number) => (await t.deps.db.selectFrom('campaigns').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status
    const submittedTo = (phones: string[]) => smsc.submits.filter((s) => phones.includes(s.destination)).length
    const sendDue = () => smsDispatcher(t, channel).drain()

    it('holds a campaign of 20 numbers until approved (then sends it) or rejected (then pays it back); 19 pass at once', async () => {
      const small = numbers(19, 380637000000)
      const smallId = await create(await listOf(setup.account, small))
      assert.equal(await statusOf(smallId), CAMPAIGN_STATUS.sending)

      const approved = numbers(20, 380637100000)
      const rejected = numbers(20, 380637200000)
      const balance = await balanceMicros(t, setup.account)
      const approvedId = await create(await listOf(setup.account, approved))
      const rejectedId = await create(await listOf(setup.account, rejected))
      assert.deepEqual([await statusOf(approvedId), await statusOf(rejectedId)], [CAMPAIGN_STATUS.pending, CAMPAIGN_STATUS.pending])
      assert.equal(balance - (await balanceMicros(t, setup.account)), 2 * 20 * 15_000, 'both paid at creation')
      await sendDue()
      assert.equal(submittedTo(small), 19)
      assert.deepEqual([submittedTo(approved), submittedTo(rejected)], [0, 0], 'nothing sent while held')

      await approveCampaign(t.deps, approvedId)
      await rejectCampaign(t.deps, rejectedId)
      await sendDue()
      assert.equal(submittedTo(approved), 20, 'approved: sent')
      assert.equal(submittedTo(rejected), 0, 'rejected: never sent')
      assert.equal(await statusOf(rejectedId), CAMPAIGN_STATUS.blocked)
      assert.equal(balance - (await balanceMicros(t, setup.account)), 20 * 15_000, 'the rejected campaign paid back')
      const info = await smsCampaignInfo(t, setup.account, rejectedId)
      assert.deepEqual([...new Set(info.task_phones_info.map((n) => [n.status, n.money_spent].join()))], ['12,0'])
    })
  })
}
