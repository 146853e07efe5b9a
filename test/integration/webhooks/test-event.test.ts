// POST /v2/email-service/webhook/{id}/test (a Tidings extension, issue 21 item 6): one test event queued for the
// webhook's URL and delivered by the same sender as real events, so it reaches a real receiver on loopback signed
// with the account's secret and shows in the delivery log; a failed one is retried, or given up on for a URL the
// sender may not reach (the button is no way around the private-address refusal); another account's id is refused
// as a missing one; one test per URL every 5 seconds.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Webhook } from 'standardwebhooks'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js'
import { WebhookSender } from '../../../src/dispatcher/webhook-sender.js'
import type { Deps } from '../../../src/services/types.js'

const BASE = '/v2/email-service/webhook'

interface Attempt {
  events: number
  status_code: number | null
  error: string | null
}

for (const dialect of DIALECTS) {
  describe(`the webhook test event on ${dialect}`, () => {
    let t: TestApp
    let receiver: WebhookReceiver
    /** The sender as a self-hosted operator runs it (TIDINGS_WEBHOOK_ALLOW_PRIVATE=1): the receiver is on loopback. */
    let permissive: Deps
    before(async () => {
      t = await startTestApp(dialect, { webhookAllowPrivate: false })
      permissive = { ...t.deps, config: { ...t.deps.config, webhookAllowPrivate: true } }
      receiver = await startWebhookReceiver()
    })
    after(async () => {
      await receiver.close()
      await t.close()
    })

    async function subscribe(account: TestAccount, url: string, actions: string[] = ['delivered']): Promise<number> {
      const answer = await t.call(account, { method: 'POST', url: BASE, payload: { url, actions } })
      assert.equal(answer.statusCode, 200, answer.body)
      return answer.json<{ data: { id: number }[] }>().data[0]!.id
    }
    const sendTest = (account: TestAccount, id: number) => t.call(account, { method: 'POST', url: `${BASE}/${id}/test` })
    const log = async (account: TestAccount, id: number) => (await t.call(account, { method: 'GET', url: `${BASE}/${id}/deliveries` })).json<{ data: Attempt[] }>().data

    it('delivers one signed test event to the receiver and logs the request', async () => {
      const account = await t.account()
      const id = await subscribe(account, receiver.url, ['open', 'delivered'])
      const sent = await sendTest(account, id)
      assert.equal(sent.statusCode, 200, sent.body)
      const eventId = sent.json<{ success: boolean; data: { event_id: number } }>().data.event_id
      assert.equal(sent.json<{ success: boolean }>().success, true)
      assert.equal(receiver.received.length, 0, 'queued, not sent by the API process')

      await new WebhookSender(permissive).deliverDue()
      assert.equal(receiver.received.length, 1)
      const delivery = receiver.received[0]!
      const secret = (await t.call(account, { method: 'GET', url: `${BASE}/secret` })).json<{ data: { secret: string } }>().data.secret
      assert.doesNotThrow(() => new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>, { jsonParse: false }))
      assert.deepEqual(delivery.events, [{ id: String(eventId), user_id: String(account.id), event: 'test', timestamp: String(Math.floor(t.clock.now / 1000)), webhook_id: String(id), webhook_action: 'open' }])
      assert.deepEqual((await log(account, id)).map((a) => [a.events, a.status_code, a.error]), [[1, 200, null]])
      receiver.received.length = 0
    })

    it('retries a test event the receiver refused, and at once when another test is asked for, logging each request', async () => {
      const account = await t.account()
      const url = `${receiver.url}?retried`
      const id = await subscribe(account, url)
      receiver.status = 500
      try {
        assert.equal((await sendTest(account, id)).statusCode, 200)
        // Refused, then retried after 1, 2 and 4 s: the URL now waits 8 s.
        for (const backoff of [0, 1_000, 2_000, 4_000]) {
          t.clock.advance(backoff)
          await new WebhookSender(permissive).deliverDue()
        }
      } finally {
        receiver.status = 200
      }
      assert.deepEqual((await log(account, id)).map((a) => [a.events, a.status_code, a.error]), Array(4).fill([1, 500, 'HTTP 500']))
      // A receiver fixed and tested again 5 s later is tried at once, with the first test event still first in line.
      t.clock.advance(5_000)
      await new WebhookSender(permissive).deliverDue()
      assert.equal(receiver.received.length, 0, 'still waiting its backoff')
      assert.equal((await sendTest(account, id)).statusCode, 200)
      await new WebhookSender(permissive).deliverDue()
      assert.deepEqual(receiver.received.map((d) => d.events.map((e) => e.event)), [['test', 'test']])
      assert.deepEqual((await log(account, id)).slice(0, 2).map((a) => [a.events, a.status_code]), [[2, 200], [1, 500]])
      receiver.received.length = 0
    })

    it('refuses a test to a private address as any delivery there, without the receiver hearing of it', async () => {
      const account = await t.account()
      const port = new URL(receiver.url).port
      const id = await subscribe(account, `http://localhost:${port}/hook`)
      const heard = receiver.received.length + receiver.refused
      assert.equal((await sendTest(account, id)).statusCode, 200)
      await new WebhookSender(t.deps).deliverDue()
      assert.equal(receiver.received.length + receiver.refused, heard, 'nothing reached loopback')
      assert.deepEqual((await log(account, id)).map((a) => [a.status_code, a.error]), [[null, 'refused to connect to localhost (loopback address)']])
      const failed = (await t.call(account, { method: 'GET', url: `${BASE}/${id}/failed` })).json<{ data: { event: string; error: string }[] }>().data
      assert.deepEqual(failed.map((e) => [e.event, e.error]), [['test', 'refused to connect to localhost (loopback address)']])
    })

    it("answers another account's webhook as a missing one, queuing nothing", async () => {
      const owner = await t.account()
      const id = await subscribe(owner, 'https://hooks.example/owner')
      const other = await t.account()
      const missing = await sendTest(other, 999_999_999)
      const foreign = await sendTest(other, id)
      assert.equal(foreign.statusCode, 404, foreign.body)
      assert.deepEqual(foreign.json(), missing.json())
      const queued = await t.deps.db.selectFrom('events').select('id').where('account_id', 'in', [owner.id, other.id]).execute()
      assert.deepEqual(queued, [])
      // The owner's own limit is untouched by the refused call.
      assert.equal((await sendTest(owner, id)).statusCode, 200)
    })

    it('allows one test per URL every 5 seconds, its webhooks together, other URLs apart', async () => {
      const account = await t.account()
      const first = await subscribe(account, 'https://hooks.example/limited', ['open'])
      const sameUrl = await subscribe(account, 'https://hooks.example/limited', ['spam'])
      const otherUrl = await subscribe(account, 'https://hooks.example/other', ['open'])
      assert.equal((await sendTest(account, first)).statusCode, 200)
      for (const id of [first, sameUrl]) {
        const refused = await sendTest(account, id)
        assert.equal(refused.statusCode, 429, refused.body)
        assert.deepEqual(Object.keys(refused.json()).sort(), ['error_code', 'message'])
        assert.match(refused.json<{ message: string }>().message, /5 seconds/)
        assert.equal(refused.headers['retry-after'], '5')
      }
      assert.equal((await sendTest(account, otherUrl)).statusCode, 200)
      t.clock.advance(4_000)
      assert.equal((await sendTest(account, sameUrl)).headers['retry-after'], '1')
      t.clock.advance(1_000)
      assert.equal((await sendTest(account, sameUrl)).statusCode, 200)
      const queued = await t.deps.db.selectFrom('events').select('action').where('account_id', '=', account.id).execute()
      assert.deepEqual(queued.map((e) => e.action), ['test', 'test', 'test'], 'refused tests queue nothing')
    })

    it('is documented in the OpenAPI document as an extension', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, { post?: { 'x-tidings-extension'?: boolean; responses?: object } }> }>()
      const route = doc.paths['/v2/email-service/webhook/{id}/test']?.post
      assert.equal(route?.['x-tidings-extension'], true)
      assert.ok(route?.responses && '429' in route.responses)
    })
  })
}
