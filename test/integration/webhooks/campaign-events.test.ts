// The campaign actions of API.md section 6, each produced by what really causes it and received by a real
// HTTP receiver with its documented fields: delivered, soft and hard bounces at sending time (a real SMTP
// server answering 451 and 550), open and redirect through the tracking links, unsubscribe by one-click
// POST, and spam through an ARF report to the bounce listener.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import nodemailer from 'nodemailer'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { freePort } from '../../helpers/postgres.js'
import { campaignSetup, createCampaign, dispatcher } from '../../helpers/campaigns.js'
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js'
import { smtpChannel } from '../../../src/delivery/email/smtp.js'
import { listenForBounces } from '../../../src/main.js'
import { WebhookSender } from '../../../src/dispatcher/webhook-sender.js'
import { arf } from '../../helpers/reports.js'

const PUBLIC = 'https://news.example.org'

for (const dialect of DIALECTS) {
  describe(`campaign webhook events on ${dialect}`, () => {
    let t: TestApp
    let sink: SmtpSink
    let receiver: WebhookReceiver
    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100, webhookAllowPrivate: true, trustProxy: true, publicUrl: PUBLIC, bouncePort: await freePort(), host: '127.0.0.1' })
      sink = await startSmtpSink()
      receiver = await startWebhookReceiver()
    })
    after(async () => {
      await receiver.close()
      await sink.close()
      await t.close()
    })

    it('sends every campaign action with its fields', async () => {
      const setup = await campaignSetup(t, 5)
      const [reader, clicker, leaver, complainer, gone] = setup.emails as [string, string, string, string, string]
      const expect = { bookName: (await t.call(setup.account, { method: 'GET', url: `/addressbooks/${setup.bookId}` })).json<{ name: string }[]>()[0]!.name }
      const actions = ['delivered', 'soft_bounces', 'hard_bounces', 'open', 'redirect', 'unsubscribe', 'spam']
      assert.equal((await t.call(setup.account, { method: 'POST', url: '/v2/email-service/webhook', payload: { url: receiver.url, actions } })).statusCode, 200)
      let refusedOnce = false
      sink.refuse = (rcpt) => {
        if (rcpt === gone) return { code: 550, message: '5.1.1 User unknown' }
        if (rcpt === complainer && !refusedOnce) return (refusedOnce = true), { code: 451, message: '4.2.0 Try later' }
        return undefined
      }
      const id = (await createCampaign(t, setup, { name: 'Events' })).json<{ id: number }>().id
      const channel = smtpChannel({ url: sink.url })
      const d = dispatcher(t, channel)
      await d.drain()
      t.clock.advance(60_000)
      await d.drain()
      await channel.close()

      const html = (email: string) => String(sink.received.find((r) => r.envelopeTo[0] === email)?.mail.html ?? '')
      const link = (email: string, ending: RegExp) => [...html(email).matchAll(/https:\/\/news\.example\.org(\/t\/[^"'\s]+)/g)].map((m) => m[1]!).find((p) => ending.test(p))!
      assert.equal((await t.app.inject({ method: 'GET', url: link(reader, /open\.gif$/), headers: { 'x-forwarded-for': '8.8.8.8' } })).statusCode, 200)
      assert.equal((await t.app.inject({ method: 'GET', url: link(clicker, /\/c\/1$/) })).statusCode, 302)
      assert.equal((await t.app.inject({ method: 'POST', url: link(leaver, /\/unsubscribe$/), payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).statusCode, 200)
      const listener = await listenForBounces(t.deps)
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: listener.port, secure: false, ignoreTLS: true })
      const returnPath = sink.received.find((r) => r.envelopeTo[0] === complainer)!.envelopeFrom
      await transport.sendMail({ envelope: { from: '', to: 'fbl@news.example.org' }, raw: arf(returnPath, complainer) })
      transport.close()
      await listener.close()

      await new WebhookSender(t.deps).deliverDue()
      const events = receiver.received.flatMap((r) => r.events).filter((e) => e.task_id === String(id))
      const of = (action: string, email?: string) => events.filter((e) => e.event === action && (email === undefined || e.email === email))
      const common = { task_id: String(id), task_name: 'Events', book_id: String(setup.bookId), book_name: expect.bookName, user_id: String(setup.account.id) }
      assert.equal(of('delivered').length, 4, 'all but the unknown address')
      assert.deepEqual(of('soft_bounces', complainer).map((e) => [e.status, e.bounce_reason]), [['7', '451 4.2.0 Try later']])
      assert.deepEqual(of('hard_bounces', gone).map((e) => ({ ...e, id: undefined, timestamp: undefined })), [{ ...common, event: 'hard_bounces', email: gone, status: '6', bounce_reason: '550 5.1.1 User unknown', id: undefined, timestamp: undefined }])
      assert.deepEqual(of('open', reader).map((e) => [e.country, e.task_name, e.book_id]), [['US', 'Events', String(setup.bookId)]])
      assert.deepEqual(of('redirect', clicker).map((e) => e.link_url), ['https://blog.example/'])
      assert.deepEqual(of('unsubscribe', leaver).map((e) => e.task_id), [String(id)])
      assert.deepEqual(of('spam', complainer).map((e) => e.status), ['11'])
    })
  })
}
