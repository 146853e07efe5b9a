// SMS campaigns to numbers (API.md 4.11, 4.11.1; COMPAT.md "SMS and Viber"): creation priced by parts and
// paid at once, refusals that store nothing, the capture channel's simulated receipts, scheduling, emulate,
// cancel with the refund, delete, the date list, and tenant isolation; on both databases.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { snapshotDatabase } from '../../helpers/factories.js'
import { balanceMicros, smsCampaignInfo, smsDispatcher, smsSetup, waitFor, type SmsSetup } from '../../helpers/sms.js'
import { captureSmsChannel } from '../../../src/delivery/sms/capture.js'
import { registerSmsSender } from '../../../src/services/sms/senders.js'
import { toWireDate } from '../../../src/lib/wire-date.js'
import type { SmsChannel } from '../../../src/delivery/sms/channel.js'

const PRICES = 'default=0.02,UA=0.015,UA:international=0.03'
const UA = ['+380631234567', 380671234567]
const GB = '+447400123456'

for (const dialect of DIALECTS) {
  describe(`SMS campaigns on ${dialect}`, () => {
    let t: TestApp
    let setup: SmsSetup
    let channel: SmsChannel

    before(async () => {
      t = await startTestApp(dialect, { smsPrices: PRICES })
      setup = await smsSetup(t)
      channel = captureSmsChannel({ receiptDelayMs: 5 })
    })
    after(async () => {
      await channel.close()
      await t.close()
    })

    const send = (payload: Record<string, unknown>, account = setup.account) => t.call(account, { method: 'POST', url: '/sms/send', payload: { sender: setup.sender, body: 'Sale today', ...payload } })

    it('refuses bad campaigns with a 4xx naming the problem, and stores nothing', async () => {
      const moderated = await t.account()
      await registerSmsSender(t.deps, setup.account.id, 'Waiting')
      const before = await snapshotDatabase(t.deps)
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ sender: undefined }, /sender/],
        [{ sender: 'Far too long sender' }, /sender/],
        [{ sender: 'Unknown' }, /"Unknown" is not registered/],
        [{ sender: 'Waiting' }, /"Waiting" is still in moderation/],
        [{ body: '' }, /body/],
        [{ body: 'x'.repeat(700) }, /too long/],
        [{ phones: [] }, /phones/],
        [{ date: '2030-02-30 10:00:00' }, /date/],
        [{ route: { UA: 'cheap' } }, /route/],
        [{ route: { Ukraine: 'national' } }, /route/],
        [{ body: 'Hi {{#if}}' }, /template/],
      ]
      for (const [fields, message] of cases) {
        const answer = await send({ phones: UA, ...fields })
        assert.ok(answer.statusCode >= 400 && answer.statusCode < 500, `${JSON.stringify(fields)}: ${answer.statusCode} ${answer.body}`)
        const body = answer.json<{ error_code: number; message: string }>()
        assert.equal(typeof body.error_code, 'number')
        assert.match(body.message, message, JSON.stringify(fields))
      }
      // Another account's approved sender is not this account's.
      const foreign = await send({ phones: UA }, moderated)
      assert.equal(foreign.statusCode, 422, foreign.body)
      assert.deepEqual(await snapshotDatabase(t.deps), { ...before, sms_senders: before.sms_senders })
    })

    it('prices each number by parts, country and route, and writes it off at once', async () => {
      const balance = await balanceMicros(t, setup.account)
      const answer = await send({ phones: [...UA, 'not a number', GB, '+380631234567'], route: { GB: 'international' } })
      assert.equal(answer.statusCode, 200, answer.body)
      const created = answer.json<{ result: boolean; campaign_id: number; counters: { exceptions: number; sends: number } }>()
      assert.deepEqual(created.counters, { exceptions: 1, sends: 3 })
      // Two Ukrainian numbers at 0.015 and a British one at the default 0.02 (no GB:international entry).
      assert.equal(balance - (await balanceMicros(t, setup.account)), 50_000)
      const info = await smsCampaignInfo(t, setup.account, created.campaign_id)
      assert.equal(info.company_price, 0.05)
      assert.equal(info.sender_name, setup.sender)
      assert.equal(info.address_book_id, 0)
      assert.deepEqual(
        info.task_phones_info.map((n) => [n.phone, n.status, n.сountry_code, n.money_spent]),
        [
          [380631234567, 0, 'UA', 0.015],
          [380671234567, 0, 'UA', 0.015],
          [447400123456, 0, 'GB', 0.02],
        ],
      )
    })

    it('counts long and Unicode texts in parts, and routes by country', async () => {
      const cost = async (body: string, route?: Record<string, string>, extra: Record<string, string> = {}) => {
        const answer = await t.call(setup.account, { method: 'GET', url: '/sms/campaigns/cost', query: { sender: setup.sender, body, phones: JSON.stringify(['380631234567']), ...(route ? { route: JSON.stringify(route) } : {}), ...extra } })
        assert.equal(answer.statusCode, 200, answer.body)
        return answer.json<{ data: { price: number; currency: string } }>().data
      }
      assert.deepEqual(await cost('a'.repeat(160)), { price: 0.015, currency: 'USD' })
      assert.equal((await cost('a'.repeat(161))).price, 0.03)
      assert.equal((await cost('Привіт'.repeat(12))).price, 0.03, '72 UCS-2 characters are two parts')
      assert.equal((await cost('a'.repeat(160), { UA: 'international' })).price, 0.03)
      assert.equal((await cost('Привіт'.repeat(12), undefined, { transliterate: '1' })).price, 0.015, 'transliterated: 72 GSM-7 characters, one part')
    })

    it('sends through the channel and takes the receipts: 0 → 1 → 2', async () => {
      const answer = await send({ phones: [GB] })
      const id = answer.json<{ campaign_id: number }>().campaign_id
      const dispatcher = smsDispatcher(t, channel)
      assert.ok((await dispatcher.drain()) >= 1)
      assert.ok([1, 2].includes((await smsCampaignInfo(t, setup.account, id)).task_phones_info[0]!.status))
      await waitFor(async () => (await smsCampaignInfo(t, setup.account, id)).task_phones_info[0]!.status === 2)
      const [number] = (await smsCampaignInfo(t, setup.account, id)).task_phones_info
      assert.equal(number!.status, 2)
      assert.equal(number!.status_explain, 'Delivered')
      // Captured, the text is readable in the outbox.
      const outbox = await t.call(setup.account, { method: 'GET', url: '/outbox', query: { campaign_id: String(id) } })
      assert.deepEqual(outbox.json<{ kind: string; to: string; text: string; status: string; from_name: string }[]>().map((m) => [m.kind, m.to, m.text, m.status, m.from_name]), [['sms', '447400123456', 'Sale today', 'captured', setup.sender]])
      // API.md 6 has no SMS events: the campaign's start and end make no task_status_update.
      const events = await t.deps.db.selectFrom('events').select('action').where('account_id', '=', setup.account.id).execute()
      assert.deepEqual(events, [])
    })

    it('transliterates what GSM-7 lacks when asked, in the text sent and in its price', async () => {
      const answer = await send({ phones: [GB], body: 'Привіт, Юлія! Знижка 10€ 😀', transliterate: 1 })
      const id = answer.json<{ campaign_id: number }>().campaign_id
      const outbox = await t.call(setup.account, { method: 'GET', url: '/outbox', query: { campaign_id: String(id) } })
      assert.deepEqual(outbox.json<{ text: string }[]>().map((m) => m.text), ['Privit, Yuliya! Znizhka 10€ 😀'])
      assert.equal(await smsDispatcher(t, channel).drain(), 1)
    })

    it('refuses a campaign the balance cannot pay, storing nothing', async () => {
      const poor = await smsSetup(t, 'Poor')
      await t.deps.db.insertInto('ledger_entries').values({ account_id: poor.account.id, amount_micros: -99_990_000, kind: 'write_off', note: 'test', created_at: t.clock.now }).execute()
      const before = await snapshotDatabase(t.deps)
      const answer = await t.call(poor.account, { method: 'POST', url: '/sms/send', payload: { sender: 'Poor', body: 'Hi', phones: [GB] } })
      assert.equal(answer.statusCode, 422, answer.body)
      assert.equal(answer.json<{ error_code: number }>().error_code, 14)
      assert.deepEqual(await snapshotDatabase(t.deps), before)
    })

    it('emulate forms and prices a campaign that is never sent, charged or listed', async () => {
      const balance = await balanceMicros(t, setup.account)
      const answer = await send({ phones: [GB], emulate: '1' })
      assert.equal(answer.statusCode, 200, answer.body)
      const id = answer.json<{ campaign_id: number }>().campaign_id
      assert.equal(await smsDispatcher(t, channel).drain(), 0)
      assert.equal(await balanceMicros(t, setup.account), balance)
      const info = await smsCampaignInfo(t, setup.account, id)
      assert.deepEqual(info.task_phones_info.map((n) => [n.status, n.money_spent]), [[0, 0.02]])
      const list = await t.call(setup.account, { method: 'GET', url: '/sms/campaigns/list' })
      assert.ok(!list.json<{ data: { id: number }[] }>().data.some((c) => c.id === id))
    })

    it('schedules by date; a zero or past date means now; cancel before sending pays everything back', async () => {
      const dispatcher = smsDispatcher(t, channel)
      for (const date of ['0001-01-01 00:00:00', '2001-01-01 00:00:00', '']) {
        const now = await send({ phones: [GB], date })
        assert.equal(now.statusCode, 200, now.body)
        assert.equal(await dispatcher.drain(), 1, `date ${JSON.stringify(date)} means now`)
      }
      const balance = await balanceMicros(t, setup.account)
      const later = await send({ phones: UA, date: toWireDate(t.clock.now + 3_600_000) })
      const id = later.json<{ campaign_id: number }>().campaign_id
      assert.equal(await dispatcher.drain(), 0, 'not before its time')
      // Cancel as the SDKs send it: no body, an empty JSON body, [] and {}.
      const cancel = await t.call(setup.account, { method: 'PUT', url: `/sms/campaigns/cancel/${id}`, headers: { 'content-type': 'application/json' }, payload: '' })
      assert.equal(cancel.statusCode, 200, cancel.body)
      for (const payload of [undefined, '[]', '{}']) {
        const again = await t.call(setup.account, { method: 'PUT', url: `/sms/campaigns/cancel/${id}`, ...(payload ? { payload, headers: { 'content-type': 'application/json' } } : {}) })
        assert.equal(again.statusCode, 200, again.body)
      }
      assert.equal(await balanceMicros(t, setup.account), balance, 'the write-off came back')
      t.clock.advance(2 * 3_600_000)
      assert.equal(await dispatcher.drain(), 0, 'a canceled campaign is never sent')
      const info = await smsCampaignInfo(t, setup.account, id)
      assert.deepEqual(info.task_phones_info.map((n) => [n.status, n.money_spent]), [[12, 0], [12, 0]])
    })

    it('refuses to cancel once sending started, and deletes', async () => {
      const answer = await send({ phones: [GB] })
      const id = answer.json<{ campaign_id: number }>().campaign_id
      await smsDispatcher(t, channel).drain()
      const cancel = await t.call(setup.account, { method: 'PUT', url: `/sms/campaigns/cancel/${id}` })
      assert.equal(cancel.statusCode, 422, cancel.body)
      assert.match(cancel.json<{ message: string }>().message, /started/)
      const removed = await t.call(setup.account, { method: 'DELETE', url: '/sms/campaigns', payload: { id } })
      assert.equal(removed.statusCode, 200, removed.body)
      assert.equal((await t.call(setup.account, { method: 'GET', url: `/sms/campaigns/info/${id}` })).statusCode, 404)
    })

    it('lists campaigns by creation date', async () => {
      const from = toWireDate(t.clock.now + 10 * 3_600_000)
      t.clock.advance(11 * 3_600_000)
      const answer = await send({ phones: [GB] })
      const id = answer.json<{ campaign_id: number }>().campaign_id
      const list = async (query: Record<string, string>) => {
        const got = await t.call(setup.account, { method: 'GET', url: '/sms/campaigns/list', query })
        assert.equal(got.statusCode, 200, got.body)
        return got.json<{ result: boolean; data: { id: number; company_price: number; company_currency: string; sender_mail_address: string }[] }>().data
      }
      const recent = await list({ dateFrom: from, dateTo: toWireDate(t.clock.now + 60_000) })
      assert.deepEqual(recent.map((c) => c.id), [id])
      assert.equal(recent[0]!.company_price, 0.02)
      assert.equal(recent[0]!.sender_mail_address, '')
      assert.ok((await list({ dateTo: from })).every((c) => c.id !== id))
      const bad = await t.call(setup.account, { method: 'GET', url: '/sms/campaigns/list', query: { dateFrom: 'yesterday' } })
      assert.equal(bad.statusCode, 422, bad.body)
    })

    it("keeps accounts apart: another account's campaign is not found, and email routes never see SMS campaigns", async () => {
      const answer = await send({ phones: [GB], date: toWireDate(t.clock.now + 3_600_000) })
      const id = answer.json<{ campaign_id: number }>().campaign_id
      const other = await smsSetup(t, 'Other')
      for (const request of [
        { method: 'GET', url: `/sms/campaigns/info/${id}` },
        { method: 'PUT', url: `/sms/campaigns/cancel/${id}` },
        { method: 'DELETE', url: '/sms/campaigns', payload: { id } },
      ] as const) {
        const got = await t.call(other.account, request)
        assert.equal(got.statusCode, 404, `${request.method} ${request.url}: ${got.body}`)
      }
      assert.equal((await t.call(other.account, { method: 'GET', url: '/sms/campaigns/list' })).json<{ data: unknown[] }>().data.length, 0)
      const texts = await t.call(other.account, { method: 'GET', url: '/outbox', query: { campaign_id: String(id) } })
      assert.equal(texts.statusCode, 404, "another account's SMS texts are not in its outbox")
      assert.equal((await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}` })).statusCode, 404)
      const emails = await t.call(setup.account, { method: 'GET', url: '/campaigns' })
      assert.ok(!emails.json<{ id: number }[]>().some((c) => c.id === id))
      assert.equal((await smsCampaignInfo(t, setup.account, id)).task_phones_info[0]!.status, 0, 'still waiting')
    })
  })
}
