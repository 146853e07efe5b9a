// The outbox of service emails goes out through the email channel: to a real SMTP server on loopback, with
// temporary refusals retried, permanent ones ended with the relay's answer, and capture when no relay is set.
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { OutboxSender } from '../../../src/dispatcher/outbox-sender.js'
import { smtpChannel } from '../../../src/delivery/email/smtp.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'
import { queueServiceEmails } from '../../../src/services/email/outbox.js'
import { freePort } from '../../helpers/postgres.js'

for (const dialect of DIALECTS) {
  describe(`the outbox sender on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    let sink: SmtpSink
    const queue = (to: string, subject = 'Your code') =>
      queueServiceEmails(
        t.deps.db,
        [{ accountId: account.id, kind: 'sender_code', from: { email: 'no-reply@example.org', name: 'Tidings' }, to, subject, html: '<p>Code: <b>12345678</b></p>', text: 'Code: 12345678', shown: { subject, html: '<p>Code: <b>[hidden]</b></p>', text: 'Code: [hidden]' } }],
        t.deps.now(),
      )
    const row = (to: string) => t.deps.db.selectFrom('outbox').selectAll().where('to_email', '=', to).executeTakeFirstOrThrow()

    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account()
      sink = await startSmtpSink()
    })
    after(async () => {
      await sink.close()
      await t.close()
    })
    beforeEach(() => {
      sink.refuse = () => undefined
    })

    it('delivers queued emails through SMTP with their parts, once, and marks them sent', async () => {
      const channel = smtpChannel({ url: sink.url })
      try {
        await queue('one@example.com', 'Ünïcode subject')
        await queue('two@example.com')
        const sender = new OutboxSender(t.deps, channel)
        assert.equal(await sender.sendDue(), 2)
        assert.equal(await sender.sendDue(), 0, 'nothing is sent twice')
        const got = sink.received.filter((r) => ['one@example.com', 'two@example.com'].includes(r.envelopeTo[0] ?? ''))
        assert.equal(got.length, 2)
        const one = got.find((r) => r.envelopeTo[0] === 'one@example.com')!
        assert.equal(one.mail.subject, 'Ünïcode subject')
        assert.equal(one.mail.from?.value[0]?.address, 'no-reply@example.org')
        assert.equal(one.mail.from?.value[0]?.name, 'Tidings')
        assert.match(String(one.mail.html), /<b>12345678<\/b>/)
        assert.equal(one.mail.text?.trim(), 'Code: 12345678')
        const stored = await row('one@example.com')
        assert.equal(stored.status, 'sent')
        assert.equal(stored.provider_id, one.mail.messageId)
        assert.ok(stored.sent_at)
      } finally {
        await channel.close()
      }
    })

    it('retries a temporary refusal later and ends a permanent one with the answer', async () => {
      const channel = smtpChannel({ url: sink.url })
      try {
        sink.refuse = (to) => (to === 'later@example.com' ? { code: 451, message: 'Try again later' } : to === 'gone@example.com' ? { code: 550, message: 'No such user' } : undefined)
        await queue('later@example.com')
        await queue('gone@example.com')
        const sender = new OutboxSender(t.deps, channel)
        assert.equal(await sender.sendDue(), 2)
        const later = await row('later@example.com')
        assert.deepEqual([later.status, later.attempts], ['queued', 1])
        assert.match(String(later.last_error), /^451/)
        assert.ok(Number(later.next_attempt_at) > t.deps.now(), 'not due again at once')
        const gone = await row('gone@example.com')
        assert.equal(gone.status, 'failed')
        assert.match(String(gone.last_error), /^550/)
        assert.equal(await sender.sendDue(), 0, 'the retry waits for its time')
        sink.refuse = () => undefined
        t.clock.advance(60_000)
        assert.equal(await sender.sendDue(), 1)
        assert.equal((await row('later@example.com')).status, 'sent')
        assert.equal(sink.received.filter((r) => r.envelopeTo.includes('later@example.com')).length, 1)
      } finally {
        await channel.close()
      }
    })

    it('keeps emails queued while the relay is down', async () => {
      const channel = smtpChannel({ url: `smtp://127.0.0.1:${await freePort()}` })
      try {
        await queue('down@example.com')
        await new OutboxSender(t.deps, channel).sendDue()
        const stored = await row('down@example.com')
        assert.equal(stored.status, 'queued')
        assert.ok(stored.last_error)
      } finally {
        await channel.close()
      }
    })

    it('captures instead of sending when no relay is configured', async () => {
      await queue('captured@example.com')
      const sender = new OutboxSender(t.deps, captureChannel())
      t.clock.advance(600_000)
      assert.ok((await sender.sendDue()) >= 1)
      const stored = await row('captured@example.com')
      assert.equal(stored.status, 'captured')
      assert.equal(sink.received.some((r) => r.envelopeTo.includes('captured@example.com')), false)
      // The account reads its outbox through the API, the code hidden; another account sees none of it.
      const listed = (await t.call(account, { method: 'GET', url: '/outbox?limit=100' })).json<{ to: string; status: string; text: string; sent: string | null }[]>()
      const captured = listed.find((e) => e.to === 'captured@example.com')
      assert.deepEqual([captured?.status, captured?.text], ['captured', 'Code: [hidden]'])
      assert.match(String(captured?.sent), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
      const other = await t.account()
      assert.deepEqual((await t.call(other, { method: 'GET', url: '/outbox' })).json(), [])
    })
  })
}
