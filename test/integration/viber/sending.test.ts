// Viber campaigns sent for real: through the Vonage Messages API of a stand-in on loopback (test/helpers/vonage.ts)
// whose signed callbacks reach the API's callback route over HTTP, with the SMS instead through a real SMPP test
// server. Delivered, read, clicked and undelivered recipients; forged, replayed and unknown callbacks; stretch_time;
// a provider outage; live times that end; a provider's refusal; the capture channel; on both databases.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { pino } from 'pino'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { balanceMicros, smsDispatcher, testSmppChannel, waitFor } from '../../helpers/sms.js'
import { startSmsc, type Smsc } from '../../helpers/smsc.js'
import { startVonage, type VonageStandIn } from '../../helpers/vonage.js'
import { viberDispatcher, viberRecipients, viberSetup, viberStatistics, type ViberSetup } from '../../helpers/viber.js'
import { vonageChannel } from '../../../src/delivery/viber/vonage.js'
import { captureViberChannel } from '../../../src/delivery/viber/capture.js'
import type { ViberChannel } from '../../../src/delivery/viber/channel.js'
import type { SmsChannel } from '../../../src/delivery/sms/channel.js'
import { expireViberMessages } from '../../../src/services/viber/reports.js'

const numbers = (count: number, first: number) => Array.from({ length: count }, (_, i) => first + i)
const GB_VIBER = 10_000
const SMS_PART = 20_000

for (const dialect of DIALECTS) {
  describe(`Viber campaigns sent through Vonage on ${dialect}`, () => {
    let t: TestApp
    let a: ViberSetup
    let vonage: VonageStandIn
    let smsc: Smsc
    let viber: ViberChannel
    let sms: SmsChannel

    before(async () => {
      vonage = await startVonage()
      t = await startTestApp(dialect, {
        viberPrices: 'default=0.02,GB=0.01',
        smsPrices: 'default=0.02',
        viberToken: vonage.credentials,
        viberSignatureSecret: vonage.signatureSecret,
        publicUrl: 'https://t.example',
      })
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
      a = await viberSetup(t)
      smsc = await startSmsc()
      sms = testSmppChannel(smsc)
      viber = vonageChannel({ url: vonage.url, credentials: vonage.credentials, webhookUrl: `${address}/viber/callbacks/vonage`, concurrency: 5, timeoutMs: 2000, log: pino({ level: 'silent' }) })
    })
    after(async () => {
      await viber.close()
      await sms.close()
      await smsc.close()
      await vonage.close()
      await t.close()
    })

    const create = async (payload: Record<string, unknown>) => {
      const answer = await t.call(a.account, {
        method: 'POST',
        url: '/viber',
        payload: { task_name: 'Sale', message_type: 2, sender_id: a.senderId, message_live_time: 3600, send_date: 'now', message: 'Sale today', ...payload },
      })
      assert.equal(answer.statusCode, 200, answer.body)
      return answer.json<{ data: { task_id: number } }>().data.task_id
    }
    const resend = { status: true, sms_text: 'Sale today: shop.example', sms_sender_name: 'Shop' }
    const statusesOf = async (id: number) => (await viberRecipients(t, a.account, id)).map((r) => r.status)
    const smsOf = (id: number) => t.deps.db.selectFrom('messages').select(['address', 'status', 'fallback_of']).where('campaign_id', '=', id).where('channel', '=', 'sms').orderBy('address').execute()

    it('follows each recipient through delivered, read, clicked and undelivered, with one SMS each for the undelivered', async () => {
      const phones = numbers(20, 447400500000)
      phones.forEach((phone, i) => vonage.outcomes.set(String(phone), i < 5 ? ['delivered'] : i < 15 ? ['delivered', 'read'] : ['undeliverable']))
      const balance = await balanceMicros(t, a.account)
      const id = await create({ recipients: phones, additional: { button: { text: 'Open', link: 'https://shop.example/sale' }, resend_sms: resend } })
      assert.equal(await viberDispatcher(t, viber).drain(), 20)
      await vonage.waitForCallbacks(5 + 20 + 5)
      // Five recipients follow the button: Tidings's redirect in the request Vonage got.
      for (const phone of phones.slice(10, 15)) {
        const request = vonage.requests.find((r) => r.body?.to === String(phone))!
        const { viber_service: service, message_type: type, text } = request.body as { viber_service: { action: { url: string; text: string }; category: string; ttl: number }; message_type: string; text: string }
        assert.deepEqual([type, text, service.category, service.ttl, service.action.text], ['text', 'Sale today', 'promotion', 3600, 'Open'])
        assert.ok(service.action.url.startsWith('https://t.example/v/'), service.action.url)
        const click = await t.app.inject({ method: 'GET', url: service.action.url.replace('https://t.example', '') })
        assert.equal(click.statusCode, 302)
        assert.equal(click.headers.location, 'https://shop.example/sale')
      }
      const statuses = await statusesOf(id)
      assert.deepEqual(statuses, [
        ...Array(5).fill('delivered'),
        ...Array(5).fill('delivered and read'),
        ...Array(5).fill('read and a clickthrough followed'),
        ...Array(5).fill('not delivered'),
      ])
      assert.deepEqual((await smsOf(id)).map((m) => m.address), phones.slice(15).map(String))
      assert.equal(await smsDispatcher(t, sms).drain(), 5)
      await waitFor(async () => (await smsOf(id)).every((m) => m.status === 2))
      assert.deepEqual(smsc.messages().map((m) => [m.destination, m.source, m.text]).sort(), phones.slice(15).map((p) => [String(p), 'Shop', resend.sms_text]))
      const stats = await viberStatistics(t, a.account, id)
      assert.deepEqual(stats.statistic, { sent: 20, delivered: 15, read: 10, redirected: 5, undelivered: 5, errors: 0 })
      assert.equal(stats.resend_sms_status, 2)
      assert.deepEqual(stats.resend_sms_statistic, { total: 5, queued: 0, sent: 0, delivered: 5, undelivered: 0 })
      assert.equal(stats.status, 'sent')
      // Paid: 20 Viber messages to GB and 5 one-part SMS.
      assert.equal(balance - (await balanceMicros(t, a.account)), 20 * GB_VIBER + 5 * SMS_PART)
      // Every callback was taken at once.
      assert.deepEqual(vonage.refusedCallbacks(), [])
    })

    it('refuses forged, replayed and unknown callbacks and changes nothing', async () => {
      const phone = 447400600000
      vonage.outcomes.set(String(phone), [])
      const id = await create({ recipients: [phone] })
      await viberDispatcher(t, viber).drain()
      const [message] = await t.deps.db.selectFrom('messages').select(['id', 'provider_id']).where('campaign_id', '=', id).execute()
      const content = { message_uuid: message!.provider_id, to: String(phone), from: 'Shop', timestamp: new Date().toISOString(), status: 'delivered', channel: 'viber_service', client_ref: String(message!.id) }
      const post = (signed: { body: string; authorization: string }) =>
        t.app.inject({ method: 'POST', url: '/viber/callbacks/vonage', headers: { authorization: signed.authorization, 'content-type': 'application/json' }, payload: signed.body })
      for (const forged of [
        vonage.signCallback(content, { signatureSecret: 'not-the-secret-0123456789abcdef' }),
        vonage.signCallback(content, { alg: 'none' }),
        vonage.signCallback(content, { apiKey: 'other-key' }),
        vonage.signCallback(content, { payloadHash: 'ab'.repeat(32) }),
        vonage.signCallback(content, { iat: Math.floor(Date.now() / 1000) - 3600 }),
        { body: JSON.stringify(content), authorization: '' },
      ]) {
        const answer = await post(forged)
        assert.equal(answer.statusCode, 401, answer.body)
        assert.equal(typeof answer.json<{ error_code: number }>().error_code, 'number')
      }
      assert.deepEqual(await statusesOf(id), ['send'])
      const unknown = await post(vonage.signCallback({ ...content, client_ref: '999999999' }))
      assert.equal(unknown.statusCode, 404)
      const genuine = vonage.signCallback(content)
      assert.equal((await post(genuine)).statusCode, 200)
      assert.deepEqual(await statusesOf(id), ['delivered'])
      assert.equal((await post(genuine)).statusCode, 401, 'the same token again is a replay')
      // One unauthenticated request costs at most the public body limit: a larger one is refused before any check.
      const huge = vonage.signCallback({ ...content, padding: 'x'.repeat(20_000) })
      const tooLarge = await post(huge)
      assert.equal(tooLarge.statusCode, 413)
      assert.equal(typeof tooLarge.json<{ error_code: number }>().error_code, 'number')
      // An answer never echoes the token, the secret or the body.
      for (const answer of [await post(vonage.signCallback(content, { signatureSecret: 'wrong-secret-0123456789abcdef' })), unknown]) {
        assert.ok(!answer.body.includes(vonage.signatureSecret) && !answer.body.includes('Bearer') && !answer.body.includes(String(message!.provider_id)), answer.body)
      }
    })

    it('redirects only signed button tokens, counting nothing for a forged one', async () => {
      const phone = 447400650000
      vonage.outcomes.set(String(phone), [])
      const id = await create({ recipients: [phone], additional: { button: { text: 'Open', link: 'https://shop.example/b' } } })
      await viberDispatcher(t, viber).drain()
      const request = vonage.requests.find((r) => r.body?.to === String(phone))!
      const path = (request.body as { viber_service: { action: { url: string } } }).viber_service.action.url.replace('https://t.example', '')
      const [payload, mac] = path.slice('/v/'.length).split('.')
      // Another message's id under this token's MAC, a MAC cut short, an id alone: none is a link of ours.
      for (const forged of [`/v/${Buffer.from('1').toString('base64url')}.${mac}`, `/v/${payload}.${mac!.slice(0, 10)}`, `/v/${payload}`, '/v/x'.padEnd(150, 'x')]) {
        const answer = await t.app.inject({ method: 'GET', url: forged })
        assert.equal(answer.statusCode, 404, forged)
        assert.ok(!answer.headers.location, forged)
      }
      assert.deepEqual(await statusesOf(id), ['send'], 'no click counted')
      assert.equal((await t.app.inject({ method: 'GET', url: path })).statusCode, 302)
      assert.deepEqual(await statusesOf(id), ['read and a clickthrough followed'])
    })

    it('ends a message its provider refused as an error, paid back, with its SMS instead', async () => {
      const phone = 447400700000
      vonage.failNext(1, 422)
      const balance = await balanceMicros(t, a.account)
      const id = await create({ recipients: [phone], additional: { resend_sms: resend } })
      await viberDispatcher(t, viber).drain()
      assert.deepEqual(await statusesOf(id), ['error'])
      assert.deepEqual((await smsOf(id)).map((m) => [m.address, m.status]), [[String(phone), 0]])
      // The Viber message came back; the SMS is paid.
      assert.equal(balance - (await balanceMicros(t, a.account)), SMS_PART)
      assert.equal((await viberStatistics(t, a.account, id)).statistic.errors, 1)
      const update = await t.call(a.account, { method: 'POST', url: '/viber/update', payload: { main_task_id: id, message: 'Too late' } })
      assert.equal(update.statusCode, 422, 'a campaign whose sending started cannot be changed')
      assert.match(update.json<{ message: string }>().message, /cannot be changed/)
    })

    /** The messages of a campaign, and a signed callback of `status` for one of them posted to the route. */
    const viberMessagesOf = (id: number) =>
      t.deps.db.selectFrom('messages').select(['id', 'address', 'provider_id']).where('campaign_id', '=', id).where('channel', '=', 'viber').orderBy('id').execute()
    const postStatus = (m: { id: number; address: string; provider_id: string | null }, status: string) => {
      const signed = vonage.signCallback({ message_uuid: m.provider_id, to: m.address, from: 'Shop', timestamp: new Date().toISOString(), status, channel: 'viber_service', client_ref: String(m.id) })
      return t.app.inject({ method: 'POST', url: '/viber/callbacks/vonage', headers: { authorization: signed.authorization, 'content-type': 'application/json' }, payload: signed.body })
    }

    it('takes delivery callbacks that come together: the furthest report of each message counts, unknown ones are refused', async () => {
      const phones = numbers(4, 447401400000)
      for (const phone of phones) vonage.outcomes.set(String(phone), [])
      const id = await create({ recipients: phones })
      await viberDispatcher(t, viber).drain()
      const [m0, m1, m2, m3] = await viberMessagesOf(id)
      const unknown = { id: 999_999_999, address: '447401499999', provider_id: 'x' }
      // All in flight at once: stored in one batch (services/viber/report-batches.ts), a late `delivered` after `read` included.
      const answers = await Promise.all([
        postStatus(m0!, 'delivered'),
        postStatus(m1!, 'read'),
        postStatus(m1!, 'delivered'),
        postStatus(m2!, 'delivered'),
        postStatus(m2!, 'read'),
        postStatus(m3!, 'submitted'),
        postStatus(unknown, 'delivered'),
        postStatus(unknown, 'submitted'),
      ])
      assert.deepEqual(
        answers.map((answer) => answer.statusCode),
        [200, 200, 200, 200, 200, 200, 404, 404],
      )
      assert.deepEqual(await statusesOf(id), ['delivered', 'delivered and read', 'delivered and read', 'send'])
    })

    if (dialect === 'postgres') {
      it('stores a delivery whose message another transaction holds once it is free, without holding up the others', async () => {
        const phones = numbers(2, 447401500000)
        for (const phone of phones) vonage.outcomes.set(String(phone), [])
        const id = await create({ recipients: phones })
        await viberDispatcher(t, viber).drain()
        const [held, free] = await viberMessagesOf(id)
        let release!: () => void
        let locked!: () => void
        const isLocked = new Promise<void>((resolve) => (locked = resolve))
        // Another transaction (a recording, a report) holds the first message's row until released.
        const holder = t.deps.db.transaction().execute(async (tx) => {
          await tx.selectFrom('messages').select('id').where('id', '=', held!.id).forUpdate().execute()
          locked()
          await new Promise<void>((resolve) => (release = resolve))
        })
        await isLocked
        const heldAnswer = postStatus(held!, 'delivered')
        assert.equal((await postStatus(free!, 'delivered')).statusCode, 200, 'not held up by the other')
        assert.deepEqual(await statusesOf(id), ['send', 'delivered'])
        release()
        await holder
        assert.equal((await heldAnswer).statusCode, 200)
        assert.deepEqual(await statusesOf(id), ['delivered', 'delivered'])
      })
    }

    it('takes failure reports of sent messages that come all at once, each message ended once with its SMS instead', async () => {
      const phones = numbers(10, 447401300000)
      for (const phone of phones) vonage.outcomes.set(String(phone), [])
      const id = await create({ recipients: phones, additional: { resend_sms: resend } })
      await viberDispatcher(t, viber).drain()
      const messages = await viberMessagesOf(id)
      // Vonage reports them later, together: ten callbacks in flight at once, each ending a sent message undelivered.
      // Each was answered 500 on PostgreSQL but one: a deadlock, the campaign's row share-locked by two at once.
      const answers = await Promise.all(messages.map((m) => postStatus(m, 'undeliverable')))
      assert.deepEqual(
        answers.map((answer) => answer.statusCode),
        phones.map(() => 200),
      )
      assert.deepEqual(await statusesOf(id), phones.map(() => 'not delivered'))
      assert.deepEqual((await smsOf(id)).map((m) => [m.address, m.fallback_of]), messages.map((m) => [m.address, m.id]).sort())
    })

    // The tests below move the test clock; the stand-in's callbacks are signed at the real time, so they report nothing.
    it('spreads the sending over stretch_time', async () => {
      const phones = numbers(4, 447400800000)
      for (const phone of phones) vonage.outcomes.set(String(phone), [])
      const before = vonage.requestCount
      await create({ recipients: phones, stretch_time: 4 / 3600 })
      const dispatcher = viberDispatcher(t, viber)
      const sentBySecond: number[] = []
      for (let second = 0; second < 4; second++) {
        await dispatcher.drain()
        sentBySecond.push(vonage.requestCount - before)
        t.clock.advance(1000)
      }
      assert.deepEqual(sentBySecond, [1, 2, 3, 4])
    })

    it('tries again through a provider outage and loses nothing', async () => {
      const phones = numbers(3, 447400900000)
      for (const phone of phones) vonage.outcomes.set(String(phone), [])
      vonage.failNext(3, 503)
      const id = await create({ recipients: phones })
      const dispatcher = viberDispatcher(t, viber)
      await dispatcher.drain()
      assert.deepEqual(await statusesOf(id), [null, null, null])
      t.clock.advance(15 * 60_000)
      await dispatcher.drain()
      assert.deepEqual(await statusesOf(id), ['send', 'send', 'send'])
      assert.equal(vonage.requests.filter((r) => phones.map(String).includes(String(r.body?.to)) && r.status === 202).length, 3)
    })

    it('ends messages not delivered within their live time, each with its SMS instead', async () => {
      const phones = numbers(2, 447401000000)
      for (const phone of phones) vonage.outcomes.set(String(phone), [])
      const id = await create({ recipients: phones, message_live_time: 60, additional: { resend_sms: resend } })
      await viberDispatcher(t, viber).drain()
      t.clock.advance(59_000)
      await expireViberMessages(t.deps, 500)
      assert.deepEqual(await statusesOf(id), ['send', 'send'])
      t.clock.advance(2_000)
      assert.ok((await expireViberMessages(t.deps, 500)) >= 2)
      assert.deepEqual(await statusesOf(id), ['not delivered', 'not delivered'])
      assert.deepEqual((await smsOf(id)).map((m) => m.address), phones.map(String))
      assert.equal(await expireViberMessages(t.deps, 500), 0, 'each ends once')
      assert.equal((await smsOf(id)).length, 2)
    })

    it('simulates a delivery with the capture channel and shows the message in the outbox', async () => {
      const capture = captureViberChannel({ reportDelayMs: 10 })
      const id = await create({ recipients: [447401100000], additional: { button: { text: 'Open', link: 'https://shop.example/o' } } })
      await viberDispatcher(t, capture).drain()
      await waitFor(async () => (await statusesOf(id))[0] === 'delivered')
      assert.deepEqual(await statusesOf(id), ['delivered'])
      const outbox = await t.call(a.account, { method: 'GET', url: `/outbox?campaign_id=${id}` })
      assert.deepEqual(
        outbox.json<{ kind: string; to: string; from_name: string; text: string; status: string }[]>().map((m) => [m.kind, m.to, m.from_name, m.text, m.status]),
        [['viber', '447401100000', 'Shop', 'Sale today\n[Open] https://shop.example/o', 'captured']],
      )
      await capture.close()
    })
  })
}
