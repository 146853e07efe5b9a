// Webhook deliveries under faults: a slow receiver holds up only itself, and a worker killed with SIGKILL
// while the receiver is down loses no event: after a restart every event arrives, once, in order.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { campaignSetup, createCampaign, dispatcher, type CampaignSetup } from '../../helpers/campaigns.js'
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'
import { WebhookSender } from '../../../src/dispatcher/webhook-sender.js'
import { CLI } from '../../helpers/cli.js'

const BASE = '/v2/email-service/webhook'

for (const dialect of DIALECTS) {
  describe(`webhook delivery faults on ${dialect}`, () => {
    let t: TestApp
    const receivers: WebhookReceiver[] = []
    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100, webhookAllowPrivate: true })
    })
    after(async () => {
      for (const r of receivers) await r.close()
      await t.close()
    })

    const receiver = async () => {
      const r = await startWebhookReceiver()
      receivers.push(r)
      return r
    }
    /** An account subscribed to `delivered` at `url`, with a sent campaign of `count` messages. */
    const eventsFor = async (url: string, count: number): Promise<CampaignSetup> => {
      const setup = await campaignSetup(t, count)
      const subscribed = await t.call(setup.account, { method: 'POST', url: BASE, payload: { url, actions: ['delivered'] } })
      assert.equal(subscribed.statusCode, 200, subscribed.body)
      await createCampaign(t, setup)
      await dispatcher(t, captureChannel()).drain()
      return setup
    }

    it("does not hold up another account's deliveries behind a slow receiver", async () => {
      const slow = await receiver()
      const fast = await receiver()
      // Long enough that a busy machine (a CI box at load 18 took over 3 s) still sees the fast one first.
      slow.delayMs = 8000
      await eventsFor(slow.url, 2)
      const quick = await eventsFor(fast.url, 2)
      const sender = new WebhookSender(t.deps, { pollMs: 20 })
      sender.start()
      try {
        for (let i = 0; i < 250 && fast.received.length === 0; i++) await sleep(20)
        assert.deepEqual(fast.received.flatMap((d) => d.events).map((e) => e.email).sort(), [...quick.emails].sort())
        assert.equal(slow.pending, 1, 'the slow receiver is still answering its request')
      } finally {
        await sender.stop()
      }
      assert.equal(slow.received.flatMap((d) => d.events).length, 2, 'and its events arrive when it answers')
    })

    it('loses no event when the worker is killed while the receiver is down', async () => {
      const down = await receiver()
      down.status = 503
      const setup = await eventsFor(down.url, 30)
      const env = { ...process.env, DATABASE_URL: t.database.url, LOG_LEVEL: 'warn', TIDINGS_WEBHOOK_ALLOW_PRIVATE: '1', TIDINGS_WEBHOOK_TIMEOUT: '1' }
      const start = (): ChildProcess => spawn(process.execPath, [...CLI, 'worker'], { env, stdio: ['ignore', 'ignore', 'inherit'] })
      const first = start()
      const killed = new Promise((resolve) => first.on('close', resolve))
      for (let i = 0; i < 200 && down.refused < 2; i++) await sleep(50)
      first.kill('SIGKILL')
      await killed
      assert.ok(down.refused >= 2, `the worker tried while the receiver was down (${down.refused})`)
      down.status = 200
      const second = start()
      const stopped = new Promise((resolve) => second.on('close', resolve))
      try {
        for (let i = 0; i < 400 && down.received.flatMap((d) => d.events).length < 30; i++) await sleep(50)
      } finally {
        second.kill('SIGTERM')
        await stopped
      }
      const events = down.received.flatMap((d) => d.events)
      assert.deepEqual(events.map((e) => e.email).sort(), [...setup.emails].sort(), 'every event once')
      const ids = events.map((e) => Number(e.id))
      assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'in order')
    })
  })
}
