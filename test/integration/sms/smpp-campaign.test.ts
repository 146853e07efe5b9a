// SMS campaigns through a real SMPP connection (the test SMSC of test/helpers/smsc.ts on loopback): receipts
// deciding each number's final status, refunds of what the SMSC refused, long texts in parts, receipts that
// overtake their submit's answer, two batches recorded at once, throttling and a dropped bind mid-campaign,
// emulate and tracked short links; on both databases.
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { balanceMicros, smsCampaignInfo, smsDispatcher, smsSetup, waitFor, testSmppChannel, type SmsSetup } from '../../helpers/sms.js'
import { startSmsc, type Smsc } from '../../helpers/smsc.js'
import { freePort } from '../../helpers/postgres.js'
import { disableAccount } from '../../../src/services/accounts/account-lifecycle.js'
import type { SmsChannel } from '../../../src/delivery/sms/channel.js'

const PRICES = 'default=0.02,GB=0.01'
const ESME_RINVDSTADR = 0x0b
const ESME_RTHROTTLED = 0x58
const numbers = (count: number, first = 447400100000) => Array.from({ length: count }, (_, i) => String(first + i))

for (const dialect of DIALECTS) {
  describe(`SMS campaigns over SMPP on ${dialect}`, () => {
    let t: TestApp
    let setup: SmsSetup
    let smsc: Smsc
    let channel: SmsChannel

    before(async () => {
      t = await startTestApp(dialect, { smsPrices: PRICES, publicUrl: 'https://t.example' })
      setup = await smsSetup(t)
      smsc = await startSmsc()
      channel = testSmppChannel(smsc)
    })
    afterEach(() => {
      smsc.receipts = 'after'
      smsc.receiptStat = () => 'DELIVRD'
      smsc.reject = () => undefined
    })
    after(async () => {
      await channel.close()
      await smsc.close()
      await t.close()
    })

    const send = async (payload: Record<string, unknown>) => {
      const answer = await t.call(setup.account, { method: 'POST', url: '/sms/send', payload: { sender: setup.sender, body: 'Sale today', ...payload } })
      assert.equal(answer.statusCode, 200, answer.body)
      return answer.json<{ campaign_id: number }>().campaign_id
    }

    /** Sends until every message is final, moving the test clock past each retry's backoff. */
    const sendAll = async (options: { batchSize?: number } = {}) => {
      const dispatcher = smsDispatcher(t, channel, options)
      for (let round = 0; round < 30; round++) {
        await dispatcher.drain()
        const left = await t.deps.db.selectFrom('messages').select('id').where('channel', '=', 'sms').where('status', 'in', [0, 7]).where('queued', '=', 1).execute()
        if (left.length === 0) return
        // The retry's backoff passes on the test clock; the channel's reconnect takes real time.
        t.clock.advance(15 * 60_000)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      assert.fail('messages still unsent after 30 rounds')
    }

    const statuses = async (id: number) => (await smsCampaignInfo(t, setup.account, id)).task_phones_info.map((n) => [String(n.phone), n.status, n.money_spent])

    it('ends each number as the SMSC decided: delivered, not delivered, refused (and given back)', async () => {
      const [delivered, undelivered, refused] = numbers(3)
      smsc.receiptStat = (destination) => (destination === undelivered ? 'UNDELIV' : 'DELIVRD')
      smsc.reject = (destination) => (destination === refused ? ESME_RINVDSTADR : undefined)
      const balance = await balanceMicros(t, setup.account)
      const id = await send({ phones: [delivered, undelivered, refused] })
      assert.equal(balance - (await balanceMicros(t, setup.account)), 30_000, 'three GB numbers at 0.01 written off')
      await sendAll()
      await waitFor(async () => (await statuses(id)).every(([, status]) => status !== 1))
      assert.deepEqual(await statuses(id), [
        [delivered, 2, 0.01],
        [undelivered, 12, 0.01],
        [refused, 12, 0],
      ])
      assert.equal(balance - (await balanceMicros(t, setup.account)), 20_000, 'the refused number was given back; the undelivered one was paid')
      const failure = await t.deps.db.selectFrom('messages').select(['address', 'last_error']).where('campaign_id', '=', id).where('status', '!=', 2).orderBy('address').execute()
      assert.match(failure[0]!.last_error ?? '', /undeliverable/)
      assert.match(failure[1]!.last_error ?? '', /ESME_RINVDSTADR/)
    })

    it('sends a long Unicode text in parts and counts it delivered only when every part is', async () => {
      const text = 'Знижки до 50% на все взуття цього тижня! Поспішайте, кількість обмежена. Деталі в магазині.'
      const [number] = numbers(1, 447400200000)
      const before = smsc.submits.length
      const id = await send({ phones: [number], body: text })
      await sendAll()
      const parts = smsc.submits.slice(before)
      assert.equal(parts.length, 2)
      assert.deepEqual(parts.map((p) => [p.dataCoding, p.udh?.total, p.udh?.seq]), [[8, 2, 1], [8, 2, 2]])
      assert.equal(parts.map((p) => p.text).join(''), text)
      await waitFor(async () => (await statuses(id))[0]![1] === 2)
      assert.deepEqual(await statuses(id), [[number, 2, 0.02]], 'two parts at 0.01')
    })

    it('matches receipts that overtake the answer to their submit', async () => {
      smsc.receipts = 'before'
      const id = await send({ phones: numbers(5, 447400300000) })
      await sendAll()
      await waitFor(async () => (await statuses(id)).every(([, status]) => status === 2))
      assert.deepEqual((await statuses(id)).map(([, status]) => status), [2, 2, 2, 2, 2])
    })

    it('records two batches at once when each writes its messages twice (receipts first), without a deadlock', async () => {
      // A batch's transaction marks its messages sent, then delivered (their receipts came first). On PostgreSQL
      // the second write of a row makes the foreign-key check share-lock the campaign row; two batches then
      // upgrading that lock to the campaign lock of finishIfDone at once deadlocked (seen in bench:sms).
      smsc.receipts = 'before'
      const id = await send({ phones: numbers(300, 447400700000) })
      // Two batches of 5 fill the window of 10 together: they finish sending, and start recording, at once.
      const dispatcher = smsDispatcher(t, channel, { batchSize: 5 })
      for (let round = 0; round < 30; round++) await Promise.all([dispatcher.sender.sendDue(), dispatcher.sender.sendDue()])
      await waitFor(async () => (await statuses(id)).every(([, status]) => status === 2))
      assert.deepEqual((await statuses(id)).filter(([, status]) => status !== 2), [])
    })

    it('loses no number when the SMSC throttles and then drops the bind mid-campaign', async () => {
      const to = numbers(60, 447400400000)
      const id = await send({ phones: to })
      const binds = smsc.binds.length
      const submitted = smsc.submits.length
      smsc.throttleNext = 5
      smsc.dropAfter = smsc.submitCount + 25
      await sendAll({ batchSize: 20 })
      await waitFor(async () => (await statuses(id)).every(([, status]) => status === 2))
      const final = await statuses(id)
      assert.equal(final.length, 60)
      assert.deepEqual(final.filter(([, status]) => status !== 2), [], 'every number delivered in the end')
      const accepted = smsc.submits.filter((s) => s.status === 0 && to.includes(s.destination)).map((s) => s.destination)
      assert.deepEqual([...new Set(accepted)].sort(), [...to].sort(), 'each number reached the SMSC')
      assert.equal(smsc.submits.slice(submitted).filter((s) => s.status === ESME_RTHROTTLED).length, 5, 'it was throttled')
      assert.ok(smsc.binds.length > binds, 'the bind dropped and was made again')
    })

    it("never shows an account the SMSC's address when the connection fails", async () => {
      const port = await freePort()
      const down = testSmppChannel({ url: `smpp://tidings:secret@127.0.0.1:${port}` })
      const other = await smsSetup(t, 'Down')
      try {
        const created = await t.call(other.account, { method: 'POST', url: '/sms/send', payload: { sender: 'Down', body: 'Hi', phones: numbers(1, 447400800000) } })
        const id = created.json<{ campaign_id: number }>().campaign_id
        const dispatcher = smsDispatcher(t, down)
        const lastError = async () => (await t.deps.db.selectFrom('messages').select('last_error').where('campaign_id', '=', id).executeTakeFirstOrThrow()).last_error ?? ''
        for (let i = 0; i < 50 && !/ECONNREFUSED/.test(await lastError()); i++) {
          await new Promise((resolve) => setTimeout(resolve, 100))
          t.clock.advance(15 * 60_000)
          await dispatcher.drain()
        }
        const outbox = await t.call(other.account, { method: 'GET', url: '/outbox', query: { campaign_id: String(id) } })
        const shown = outbox.json<{ last_error: string | null }[]>()[0]!.last_error ?? ''
        assert.match(shown, /network error ECONNREFUSED/)
        assert.doesNotMatch(shown, new RegExp(`127\\.0\\.0\\.1|${port}`))
      } finally {
        // Its number would otherwise wait for retries the later tests' sendAll counts.
        await disableAccount(t.deps, other.account.id)
        await down.close()
      }
    })

    it('never lets an emulated campaign reach the SMSC', async () => {
      const before = smsc.submitCount
      await send({ phones: numbers(2, 447400500000), emulate: true })
      await sendAll()
      assert.equal(smsc.submitCount, before)
    })

    it('turns links into short tracked links and counts their clicks', async () => {
      const [number] = numbers(1, 447400600000)
      const id = await send({ phones: [number], body: 'Sale: https://shop.example/sale?from=sms. See you!', stat_link_tracking: 1 })
      await sendAll()
      const text = smsc.messages().find((m) => m.destination === number)!.text
      const match = /^Sale: t\.example\/s\/([A-Za-z0-9]{8})\. See you!$/.exec(text)
      assert.ok(match, text)
      const click = await t.app.inject({ method: 'GET', url: `/s/${match[1]}` })
      assert.equal(click.statusCode, 302)
      assert.equal(click.headers.location, 'https://shop.example/sale?from=sms')
      const clicks = await t.deps.db.selectFrom('campaign_link_clicks').select(['link', 'clicks']).where('campaign_id', '=', id).execute()
      assert.deepEqual(clicks.map((c) => [c.link, Number(c.clicks)]), [['https://shop.example/sale?from=sms', 1]])
      assert.equal((await t.app.inject({ method: 'GET', url: '/s/AAAAAAAA' })).statusCode, 404)
      // Codes are letters and digits, 16 at most: anything else is refused before the database is asked.
      for (const code of ['A'.repeat(5000), '..%2F..%2Fadmin', "A' OR 1=1"]) {
        const bad = await t.app.inject({ method: 'GET', url: `/s/${encodeURIComponent(code)}` })
        assert.ok(bad.statusCode >= 400 && bad.statusCode < 500, `${code.slice(0, 20)}: ${bad.statusCode}`)
      }
      // With stat_link_need_protocol the link keeps its scheme.
      const withProtocol = await send({ phones: [number], body: 'See https://shop.example/', stat_link_tracking: true, stat_link_need_protocol: true })
      await sendAll()
      assert.equal((await smsCampaignInfo(t, setup.account, withProtocol)).task_phones_info.length, 1)
      assert.match(smsc.messages().filter((m) => m.destination === number).at(-1)!.text, /^See https:\/\/t\.example\/s\/[A-Za-z0-9]{8}$/)
    })
  })
}
