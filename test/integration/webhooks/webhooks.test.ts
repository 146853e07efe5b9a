// Webhooks (API.md 4.9, 6): the endpoints with their envelope, and events of campaigns delivered to a real
// HTTP receiver on loopback: form-urlencoded batches a PHP-style parser reads, signed so the npm
// `standardwebhooks` package verifies them, retried through an outage, in order, and never to private
// addresses without the opt-in.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Webhook } from 'standardwebhooks'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { campaignSetup, createCampaign, dispatcher } from '../../helpers/campaigns.js'
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'
import { WebhookSender } from '../../../src/dispatcher/webhook-sender.js'

const BASE = '/v2/email-service/webhook'

for (const dialect of DIALECTS) {
  describe(`webhooks on ${dialect}`, () => {
    let t: TestApp
    let receiver: WebhookReceiver
    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100, webhookAllowPrivate: true })
      receiver = await startWebhookReceiver()
    })
    after(async () => {
      await receiver.close()
      await t.close()
    })

    it('creates one record per action (JSON or form, trailing slash), lists, reads, moves and deletes them', async () => {
      const account = await t.account()
      const form = await t.call(account, { method: 'POST', url: `${BASE}/`, payload: 'url=https%3A%2F%2Fhooks.example%2Fa&actions%5B0%5D=open&actions%5B1%5D=delivered', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
      assert.equal(form.statusCode, 200, form.body)
      const created = form.json<{ success: boolean; data: { id: number; user_id: number; url: string; action: string }[] }>()
      assert.equal(created.success, true)
      assert.deepEqual(created.data.map((w) => [w.user_id, w.url, w.action]), [[account.id, 'https://hooks.example/a', 'open'], [account.id, 'https://hooks.example/a', 'delivered']])
      const json = await t.call(account, { method: 'POST', url: BASE, payload: { url: 'https://hooks.example/b', actions: 'unsubscribe' } })
      assert.deepEqual(json.json<{ data: { action: string }[] }>().data.map((w) => w.action), ['unsubscribe'])
      const listed = (await t.call(account, { method: 'GET', url: BASE })).json<{ success: boolean; data: unknown[] }>()
      assert.equal(listed.data.length, 3)
      const one = (await t.call(account, { method: 'GET', url: `${BASE}/${created.data[0]!.id}` })).json<{ data: { action: string } }>()
      assert.equal(one.data.action, 'open', 'GET one answers an object')
      assert.deepEqual((await t.call(account, { method: 'PUT', url: `${BASE}/${created.data[0]!.id}`, payload: { url: 'https://hooks.example/c' } })).json(), { success: true, data: [true] })
      assert.equal((await t.call(account, { method: 'GET', url: `${BASE}/${created.data[0]!.id}` })).json<{ data: { url: string } }>().data.url, 'https://hooks.example/c')
      assert.deepEqual((await t.call(account, { method: 'DELETE', url: `${BASE}/${created.data[1]!.id}` })).json(), { success: true, data: [true] })
      assert.equal((await t.call(account, { method: 'GET', url: BASE })).json<{ data: unknown[] }>().data.length, 2)

      for (const [payload, message] of [
        [{ url: 'https://hooks.example/x', actions: ['open', 'bounced'] }, /unknown actions: bounced/],
        [{ url: 'ftp://hooks.example/x', actions: ['open'] }, /http:\/\/ or https:\/\//],
        [{ url: 'https://hooks.example/x', actions: [] }, /actions/],
      ] as const) {
        const refused = await t.call(account, { method: 'POST', url: BASE, payload })
        assert.equal(refused.statusCode, 422, refused.body)
        assert.match(refused.json<{ message: string }>().message, message)
      }
      const other = await t.account()
      for (const [method, url] of [['GET', `${BASE}/${created.data[0]!.id}`], ['PUT', `${BASE}/${created.data[0]!.id}`], ['DELETE', `${BASE}/${created.data[0]!.id}`], ['GET', `${BASE}/${created.data[0]!.id}/deliveries`]] as const) {
        assert.equal((await t.call(other, { method, url, payload: { url: 'https://evil.example/' } })).statusCode, 404, `${method} ${url}`)
      }
      assert.deepEqual((await t.call(other, { method: 'GET', url: BASE })).json(), { success: true, data: [] })
    })

    it('delivers campaign events in signed, form-encoded batches that standardwebhooks verifies', async () => {
      const setup = await campaignSetup(t, 3)
      await subscribe(t, setup.account, receiver.url, ['delivered', 'task_status_update'])
      const secret = (await t.call(setup.account, { method: 'GET', url: `${BASE}/secret` })).json<{ data: { secret: string } }>().data.secret
      assert.match(secret, /^whsec_/)
      const id = (await createCampaign(t, setup, { name: 'Hooked' })).json<{ id: number }>().id
      await dispatcher(t, captureChannel()).drain()
      const before = receiver.received.length
      await new WebhookSender(t.deps).deliverDue()
      const got = receiver.received.slice(before)
      assert.ok(got.length >= 1, `deliveries arrived: ${got.length}`)
      const verifier = new Webhook(secret)
      for (const delivery of got) {
        assert.equal(delivery.headers['content-type'], 'application/x-www-form-urlencoded')
        // The body is a form, not JSON: the package verifies it when told not to parse it (docs/webhooks.md).
        assert.equal(verifier.verify(delivery.body, delivery.headers as Record<string, string>, { jsonParse: false }), undefined)
        assert.throws(() => verifier.verify(delivery.body.replace('delivered', 'Delivered'), delivery.headers as Record<string, string>, { jsonParse: false }), /No matching signature/)
      }
      const events = got.flatMap((d) => d.events)
      const delivered = events.filter((e) => e.event === 'delivered')
      assert.deepEqual(delivered.map((e) => e.email).sort(), [...setup.emails].sort())
      assert.deepEqual(Object.keys(delivered[0]!).sort(), ['book_id', 'book_name', 'email', 'event', 'id', 'task_id', 'task_name', 'timestamp', 'user_id'])
      assert.deepEqual([delivered[0]!.task_id, delivered[0]!.task_name, delivered[0]!.book_id, delivered[0]!.user_id], [String(id), 'Hooked', String(setup.bookId), String(setup.account.id)])
      const statuses = events.filter((e) => e.event === 'task_status_update').map((e) => e.status)
      assert.deepEqual(statuses, ['2', '3'], 'the campaign went 13 → 2 → 3')
    })

    it('retries through an outage of the receiver: every event arrives once, in order', async () => {
      const setup = await campaignSetup(t, 5)
      await subscribe(t, setup.account, receiver.url, ['delivered'])
      await createCampaign(t, setup)
      await dispatcher(t, captureChannel()).drain()
      const before = receiver.received.length
      const sender = new WebhookSender(t.deps)
      receiver.status = 500
      await sender.deliverDue()
      t.clock.advance(1_500)
      await sender.deliverDue()
      assert.ok(receiver.refused >= 2, `the receiver refused twice (${receiver.refused})`)
      receiver.status = 200
      await sender.deliverDue()
      assert.equal(receiver.received.length, before, 'nothing before the backoff ends')
      t.clock.advance(60_000)
      await sender.deliverDue()
      const ids = receiver.received.slice(before).flatMap((d) => d.events).filter((e) => setup.emails.includes(String(e.email))).map((e) => Number(e.id))
      assert.equal(ids.length, 5)
      assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'in event order')
      const log = (await t.call(setup.account, { method: 'GET', url: `${BASE}/${(await firstWebhook(t, setup.account)).id}/deliveries` })).json<{ data: { status_code: number; events: number }[] }>().data
      assert.deepEqual(log.slice(0, 3).map((a) => a.status_code), [200, 500, 500], 'the delivery log, newest first')
    })

    it('delivers the audience events: new_emails with variables, unsubscribe and delete, in requests PHP reads whole', async () => {
      const account = await t.account()
      await subscribe(t, account, receiver.url, ['new_emails', 'unsubscribe', 'delete'])
      const bookId = (await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Hooks' } })).json<{ id: number }>().id
      const variables = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`v${i}`, `value ${i}`]))
      const emails = Array.from({ length: 100 }, (_, i) => `fan${i}.a${account.id}@example.com`)
      await t.call(account, { method: 'POST', url: `/addressbooks/${bookId}/emails`, payload: { emails: emails.map((email) => ({ email, variables })) } })
      await t.call(account, { method: 'POST', url: `/addressbooks/${bookId}/emails/unsubscribe`, payload: { emails: [emails[0]] } })
      await t.call(account, { method: 'DELETE', url: `/addressbooks/${bookId}/emails`, payload: { emails: [emails[1]] } })
      const before = receiver.received.length
      await new WebhookSender(t.deps).deliverDue()
      const got = receiver.received.slice(before)
      assert.ok(got.length >= 2, `100 events of 19 fields take more than one request (${got.length})`)
      for (const delivery of got) assert.ok(new URLSearchParams(delivery.body).size <= 1000, 'at most 1000 fields a request (PHP max_input_vars)')
      const events = got.flatMap((d) => d.events)
      const added = events.filter((e) => e.event === 'new_emails')
      assert.equal(added.length, 100)
      assert.deepEqual(added[5], { ...added[5], email: emails[5], book_id: String(bookId), book_name: 'Hooks', variables, user_id: String(account.id) })
      assert.deepEqual(events.filter((e) => e.event !== 'new_emails').map((e) => [e.event, e.email]), [['unsubscribe', emails[0]], ['delete', emails[1]]], 'after the additions, in order')
    })

    it('forgets ended deliveries and their events after the keeping time, never queued ones', async () => {
      const down = await startWebhookReceiver()
      down.status = 503
      try {
        const setup = await campaignSetup(t, 2)
        await subscribe(t, setup.account, receiver.url, ['delivered'])
        await subscribe(t, setup.account, down.url, ['delivered'])
        await createCampaign(t, setup)
        await dispatcher(t, captureChannel()).drain()
        const sender = new WebhookSender(t.deps)
        await sender.deliverDue()
        const mine = () =>
          t.deps.db
            .selectFrom('webhook_deliveries as d')
            .innerJoin('events as e', 'e.id', 'd.event_id')
            .select(['d.status', 'e.id'])
            .where('e.account_id', '=', setup.account.id)
            .execute()
        assert.deepEqual((await mine()).map((d) => d.status).sort(), ['delivered', 'delivered', 'queued', 'queued'])
        t.clock.advance(8 * 24 * 3_600_000)
        await sender.pruneHourly()
        assert.deepEqual((await mine()).map((d) => d.status), ['queued', 'queued'], 'the delivered ones are forgotten, the events still queued elsewhere kept')
        await sender.deliverDue()
        assert.deepEqual((await mine()).map((d) => d.status), ['failed', 'failed'], 'too old to retry')
        t.clock.advance(8 * 24 * 3_600_000)
        await sender.pruneHourly()
        assert.deepEqual(await mine(), [])
        const events = await t.deps.db.selectFrom('events').select('id').where('account_id', '=', setup.account.id).execute()
        assert.deepEqual(events, [], 'and the events with them')
      } finally {
        await down.close()
      }
    })

    it('refuses private addresses without the opt-in: the event fails visibly and nothing is sent', async () => {
      const strict = await startTestApp(dialect, { campaignsPerHour: 100 })
      try {
        const setup = await campaignSetup(strict, 1)
        await subscribe(strict, setup.account, receiver.url, ['delivered'])
        await createCampaign(strict, setup)
        await dispatcher(strict, captureChannel()).drain()
        const before = receiver.received.length + receiver.refused
        await new WebhookSender(strict.deps).deliverDue()
        assert.equal(receiver.received.length + receiver.refused, before, 'no request reached the receiver')
        const hook = (await strict.call(setup.account, { method: 'GET', url: BASE })).json<{ data: { id: number }[] }>().data[0]!
        const failed = (await strict.call(setup.account, { method: 'GET', url: `${BASE}/${hook.id}/failed` })).json<{ data: { event: string; error: string }[] }>().data
        assert.deepEqual(failed.map((f) => f.event), ['delivered'], 'the event is marked failed and visible')
        assert.match(failed[0]!.error, /private|loopback|not allowed|forbidden/i)
      } finally {
        await strict.close()
      }
    })
  })
}

async function subscribe(t: TestApp, account: TestAccount, url: string, actions: string[]): Promise<void> {
  const answer = await t.call(account, { method: 'POST', url: BASE, payload: { url, actions } })
  assert.equal(answer.statusCode, 200, answer.body)
}

async function firstWebhook(t: TestApp, account: TestAccount): Promise<{ id: number }> {
  return (await t.call(account, { method: 'GET', url: BASE })).json<{ data: { id: number }[] }>().data[0]!
}
