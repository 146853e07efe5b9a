// The senders' leases (repos/leases.ts) against a relay that hangs: a live worker keeps the lease of what it
// is sending however long the relay takes, so no second worker sends it again; and a worker whose lease was
// taken all the same (it stalled) records nothing when its late answer comes: the new holder's result stands
// and no event is made for it.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { campaignSetup, createCampaign, dispatcher } from '../../helpers/campaigns.js'
import { smtpChannel } from '../../../src/delivery/email/smtp.js'
import type { EmailChannel } from '../../../src/delivery/channel.js'
import { emailSender } from '../../../src/dispatcher/email-driver.js'
import { OutboxSender } from '../../../src/dispatcher/outbox-sender.js'
import { queueServiceEmails } from '../../../src/services/email/outbox.js'

/** A lease short enough for the heartbeat (a third of it) to beat several times during a test. */
const SHORT_LEASE_MS = 600

for (const dialect of DIALECTS) {
  describe(`send leases on ${dialect}`, () => {
    let t: TestApp
    /** The relay of the first worker, which hangs; the second worker's relay answers at once. */
    let slow: SmtpSink
    let fast: SmtpSink
    let slowChannel: EmailChannel
    let fastChannel: EmailChannel
    let release: () => void

    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100 })
      slow = await startSmtpSink()
      fast = await startSmtpSink()
      slowChannel = smtpChannel({ url: slow.url })
      fastChannel = smtpChannel({ url: fast.url })
    })
    after(async () => {
      release?.()
      await Promise.all([slowChannel.close(), fastChannel.close()])
      await Promise.all([slow.close(), fast.close()])
      await t.close()
    })

    /** Makes the slow relay hang until `release()`. */
    const hang = () => (slow.hold = new Promise<void>((resolve) => (release = resolve)))

    it('renews the lease of a batch while the relay hangs past it: a second worker claims none of its messages', async () => {
      const setup = await campaignSetup(t, 3)
      const id = (await createCampaign(t, setup)).json<{ id: number }>().id
      const first = dispatcher(t, slowChannel, { leaseMs: SHORT_LEASE_MS })
      await first.jobs.runDue()
      hang()
      const sending = first.sender.sendDue()
      await waitFor(() => slow.received.filter((r) => setup.emails.includes(r.envelopeTo[0] ?? '')).length === 3)
      // The lease as claimed has ended; only a renewal keeps the messages from the next claim.
      t.clock.advance(2 * SHORT_LEASE_MS)
      const leasedUntil = () => t.deps.db.selectFrom('messages').select('locked_until').where('campaign_id', '=', id).execute()
      await waitFor(async () => (await leasedUntil()).every((m) => Number(m.locked_until) > t.clock.now))
      const second = emailSender(t.deps, fastChannel, { leaseMs: SHORT_LEASE_MS })
      assert.equal(await second.sendDue(), 0, 'the second worker claims nothing')
      release()
      assert.equal(await sending, 3)
      const rows = await t.deps.db.selectFrom('messages').select(['status', 'queued', 'locked_until']).where('campaign_id', '=', id).execute()
      assert.deepEqual(rows, Array.from({ length: 3 }, () => ({ status: 2, queued: 0, locked_until: null })))
      assert.equal(fast.received.filter((r) => setup.emails.includes(r.envelopeTo[0] ?? '')).length, 0, 'sent once, by the first worker')
    })

    it("records nothing from a worker whose lease another took: the new holder's result stands, and no delivered event", async () => {
      const setup = await campaignSetup(t, 2)
      const hook = await t.call(setup.account, { method: 'POST', url: '/v2/email-service/webhook', payload: { url: 'https://hooks.example/in', actions: ['delivered'] } })
      assert.equal(hook.statusCode, 200, hook.body)
      const id = (await createCampaign(t, setup)).json<{ id: number }>().id
      // The default lease (TIDINGS_SEND_LEASE, 300 s) is not renewed within this test: the first worker stalls.
      const first = dispatcher(t, slowChannel)
      await first.jobs.runDue()
      hang()
      const late = first.sender.sendDue()
      await waitFor(() => slow.received.filter((r) => setup.emails.includes(r.envelopeTo[0] ?? '')).length === 2)
      t.clock.advance(t.deps.config.sendLeaseSeconds * 1000 + 1)
      // The second worker's relay is busy: it leaves both messages waiting for a retry.
      fast.refuse = (rcpt) => (setup.emails.includes(rcpt) ? { code: 451, message: '4.3.0 Try again later' } : undefined)
      try {
        assert.equal(await emailSender(t.deps, fastChannel).sendDue(), 2, 'the second worker took the expired lease')
      } finally {
        fast.refuse = () => undefined
      }
      release()
      assert.equal(await late, 2)
      const rows = await t.deps.db.selectFrom('messages').select(['status', 'queued', 'sent_at', 'last_error']).where('campaign_id', '=', id).execute()
      for (const row of rows) {
        assert.deepEqual({ ...row, last_error: row.last_error?.slice(0, 3) }, { status: 7, queued: 1, sent_at: null, last_error: '451' }, "the second worker's result")
      }
      const events = await t.deps.db.selectFrom('events').select('action').where('account_id', '=', setup.account.id).where('action', '=', 'delivered').execute()
      assert.deepEqual(events, [], 'no delivered event for messages whose lease was lost')
    })

    it('renews the lease of an outbox email while the relay hangs past it: a second sender does not send it again', async () => {
      const account = await t.account()
      const to = `code.a${account.id}@example.com`
      await queueServiceEmails(t.deps.db, [{ accountId: account.id, kind: 'sender_code', from: { email: 'no-reply@example.org', name: 'Tidings' }, to, subject: 'Code', html: '<p>1</p>', text: '1', shown: { subject: 'Code', html: '<p>[hidden]</p>', text: '[hidden]' } }], t.deps.now())
      hang()
      const sending = new OutboxSender(t.deps, slowChannel, { leaseMs: SHORT_LEASE_MS }).sendDue()
      await waitFor(() => slow.received.some((r) => r.envelopeTo[0] === to))
      t.clock.advance(2 * SHORT_LEASE_MS)
      const leasedUntil = async () => Number((await t.deps.db.selectFrom('outbox').select('locked_until').where('to_email', '=', to).executeTakeFirstOrThrow()).locked_until)
      await waitFor(async () => (await leasedUntil()) > t.clock.now)
      assert.equal(await new OutboxSender(t.deps, fastChannel, { leaseMs: SHORT_LEASE_MS }).sendDue(), 0, 'the second sender claims nothing')
      release()
      assert.ok((await sending) >= 1)
      assert.equal((await t.deps.db.selectFrom('outbox').select('status').where('to_email', '=', to).executeTakeFirstOrThrow()).status, 'sent')
      assert.equal(fast.received.filter((r) => r.envelopeTo[0] === to).length, 0)
    })
  })
}

/** Polls `condition` every 20 ms for up to 5 s (this machine runs other suites at once); the caller asserts after. */
async function waitFor(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 250 && !(await condition()); i++) await sleep(20)
}
