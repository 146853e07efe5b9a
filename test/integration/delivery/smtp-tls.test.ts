// An smtp:// relay URL with credentials: the password and the messages go only over STARTTLS, unless the
// operator says the plain connection is fine (TIDINGS_SMTP_INSECURE=1). Checked with the one channel that
// both the outbox of service emails and the campaign sender use (emailChannel, as main.ts builds it).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { campaignSetup, createCampaign, dispatcher } from '../../helpers/campaigns.js'
import { emailChannel } from '../../../src/delivery/registry.js'
import { OutboxSender } from '../../../src/dispatcher/outbox-sender.js'
import { queueServiceEmails } from '../../../src/services/email/outbox.js'
import { loadConfig } from '../../../src/config/load.js'

/** A relay on loopback that takes AUTH on a plain connection and offers no STARTTLS. */
async function startPlainRelay() {
  const logins: string[] = []
  const recipients: string[] = []
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push(`${auth.username}:${auth.password}`)
      callback(null, { user: auth.username })
    },
    onData(stream, session, callback) {
      stream.resume()
      stream.on('end', () => {
        recipients.push(...session.envelope.rcptTo.map((r) => r.address))
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  return { url: `smtp://relay-user:relay-secret@127.0.0.1:${port}`, logins, recipients, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

for (const dialect of DIALECTS) {
  describe(`an smtp:// relay with credentials and no STARTTLS on ${dialect}`, () => {
    let t: TestApp
    let relay: Awaited<ReturnType<typeof startPlainRelay>>
    const queue = async (to: string) => {
      const account = await t.account()
      await queueServiceEmails(t.deps.db, [{ accountId: account.id, kind: 'sender_code', from: { email: 'no-reply@example.org', name: 'Tidings' }, to, subject: 'Code', html: '<p>1</p>', text: '1', shown: { subject: 'Code', html: '<p>[hidden]</p>', text: '[hidden]' } }], t.deps.now())
    }
    const outboxRow = (to: string) => t.deps.db.selectFrom('outbox').selectAll().where('to_email', '=', to).executeTakeFirstOrThrow()

    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100 })
      relay = await startPlainRelay()
    })
    after(async () => {
      await relay.close()
      await t.close()
    })

    it('sends neither the password nor a message in clear: outbox and campaign emails wait for a retry', async () => {
      const channel = emailChannel({ ...t.deps.config, smtpUrl: relay.url })
      try {
        await queue('service@example.com')
        assert.equal(await new OutboxSender(t.deps, channel).sendDue(), 1)
        const row = await outboxRow('service@example.com')
        assert.deepEqual([row.status, row.attempts], ['queued', 1])
        assert.match(String(row.last_error), /STARTTLS/)

        const setup = await campaignSetup(t, 1)
        const id = (await createCampaign(t, setup)).json<{ id: number }>().id
        await dispatcher(t, channel).drain()
        const message = await t.deps.db.selectFrom('messages').select(['status', 'attempts', 'last_error']).where('campaign_id', '=', id).executeTakeFirstOrThrow()
        assert.deepEqual([message.status, message.attempts], [7, 1], 'retrying')
        assert.match(String(message.last_error), /STARTTLS/)

        assert.deepEqual(relay.logins, [], 'no AUTH over the plain connection')
        assert.deepEqual(relay.recipients, [])
      } finally {
        await channel.close()
      }
    })

    it('sends over the plain connection when TIDINGS_SMTP_INSECURE=1', async () => {
      assert.equal(loadConfig({ env: { TIDINGS_SMTP_INSECURE: '1' } }).smtpInsecure, true)
      const channel = emailChannel({ ...t.deps.config, smtpUrl: relay.url, smtpInsecure: true })
      try {
        await queue('insecure@example.com')
        await new OutboxSender(t.deps, channel).sendDue()
        assert.equal((await outboxRow('insecure@example.com')).status, 'sent')
        assert.ok(relay.logins.length > 0)
        assert.ok(relay.logins.every((login) => login === 'relay-user:relay-secret'))
        assert.ok(relay.recipients.includes('insecure@example.com'))
      } finally {
        await channel.close()
      }
    })
  })
}
