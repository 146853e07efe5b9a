// The delivery log and the failed events of a webhook name the host the customer gave, never the address it
// resolved to: the log is customer-visible, and resolved addresses would map the network the service runs in.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { campaignSetup, createCampaign, dispatcher } from '../../helpers/campaigns.js'
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'
import { WebhookSender } from '../../../src/dispatcher/webhook-sender.js'
import type { Deps } from '../../../src/services/types.js'

const BASE = '/v2/email-service/webhook'
/** Loopback in the spellings Node's errors use (IPv4, IPv6, IPv4-mapped IPv6). */
const LOOPBACK = /127\.0\.0\.1|::1|::ffff:/

for (const dialect of DIALECTS) {
  describe(`the webhook delivery log on ${dialect}`, () => {
    let t: TestApp
    let receiver: WebhookReceiver
    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100, webhookAllowPrivate: false })
      receiver = await startWebhookReceiver()
    })
    after(async () => {
      await receiver.close()
      await t.close()
    })

    /** A campaign's `delivered` event queued for `url`, delivered once by `deps`; the webhook's log and failed events. */
    async function deliverOnce(url: string, deps: Deps) {
      const setup = await campaignSetup(t, 1)
      const subscribed = await t.call(setup.account, { method: 'POST', url: BASE, payload: { url, actions: ['delivered'] } })
      assert.equal(subscribed.statusCode, 200, subscribed.body)
      const hook = subscribed.json<{ data: { id: number }[] }>().data[0]!
      assert.equal((await createCampaign(t, setup)).statusCode, 200)
      await dispatcher(t, captureChannel()).drain()
      await new WebhookSender(deps).deliverDue()
      const log = (await t.call(setup.account, { method: 'GET', url: `${BASE}/${hook.id}/deliveries` })).json<{ data: { error: string | null }[] }>().data
      const failed = (await t.call(setup.account, { method: 'GET', url: `${BASE}/${hook.id}/failed` })).json<{ data: { error: string | null }[] }>().data
      return { log, failed }
    }

    it('names the host, not the loopback address it resolved to, when a private target is refused', async () => {
      const port = new URL(receiver.url).port
      const { log, failed } = await deliverOnce(`http://localhost:${port}/hook`, t.deps)
      assert.equal(log.length, 1, 'one request was tried')
      assert.equal(failed.length, 1, 'its event failed for good')
      for (const error of [log[0]!.error, failed[0]!.error]) {
        assert.doesNotMatch(String(error), LOOPBACK, String(error))
        assert.match(String(error), /^refused to connect to localhost \(loopback address\)$/, 'the host the customer gave, and why it was refused')
      }
    })

    it('names the host, not the address, when the connection is refused', async () => {
      const closed = http.createServer()
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
      const port = (closed.address() as AddressInfo).port
      await new Promise((resolve) => closed.close(resolve))
      const permissive: Deps = { ...t.deps, config: { ...t.deps.config, webhookAllowPrivate: true } }
      const { log } = await deliverOnce(`http://localhost:${port}/hook`, permissive)
      assert.equal(log.length, 1)
      assert.doesNotMatch(String(log[0]!.error), LOOPBACK, String(log[0]!.error))
      assert.equal(log[0]!.error, `connect ECONNREFUSED localhost:${port}`)
    })
  })
}
