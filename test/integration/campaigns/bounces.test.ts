// Reports that come back after sending, through the bounce listener: a DSN to a message's VERP address ends
// the message as its status code says and marks a hard-bounced contact; an ARF complaint marks the message
// as spam and unsubscribes the contact; addresses that are not ours are refused.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import nodemailer from 'nodemailer'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { freePort } from '../../helpers/postgres.js'
import { campaignSetup, createCampaign, dispatcher, type CampaignSetup } from '../../helpers/campaigns.js'
import { smtpChannel } from '../../../src/delivery/email/smtp.js'
import { listenForBounces } from '../../../src/main.js'
import type { BounceListener } from '../../../src/delivery/email/bounce-listener.js'
import { arf, dsn } from '../../helpers/reports.js'

for (const dialect of DIALECTS) {
  describe(`bounce reports on ${dialect}`, () => {
    let t: TestApp
    let sink: SmtpSink
    let listener: BounceListener
    let setup: CampaignSetup
    let id: number
    const returnPathOf = (email: string) => sink.received.find((r) => r.envelopeTo[0] === email)!.envelopeFrom
    const report = async (to: string, raw: string) => {
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: listener.port, secure: false, ignoreTLS: true })
      try {
        return await transport.sendMail({ envelope: { from: '', to }, raw })
      } finally {
        transport.close()
      }
    }
    const message = async (email: string) => (await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}/email/${email}` })).json<{ global_status: number; detail_status_explain: string }>()
    const contact = async (email: string) => (await t.call(setup.account, { method: 'GET', url: `/addressbooks/${setup.bookId}/emails/${email}` })).json<{ status: number }>()

    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100, bounceDomain: 'bounces.example.org', bouncePort: await freePort(), host: '127.0.0.1' })
      sink = await startSmtpSink()
      listener = await listenForBounces(t.deps)
      setup = await campaignSetup(t, 3)
      id = (await createCampaign(t, setup)).json<{ id: number }>().id
      const channel = smtpChannel({ url: sink.url })
      await dispatcher(t, channel).drain()
      await channel.close()
    })
    after(async () => {
      await listener.close()
      await sink.close()
      await t.close()
    })

    it('a DSN for a missing mailbox makes the message "no such email" (6) and the contact a sending error (9)', async () => {
      const email = setup.emails[0]!
      assert.equal((await message(email)).global_status, 2)
      await report(returnPathOf(email), dsn(email, '5.1.1', '550 5.1.1 <' + email + '>: Recipient address rejected: User unknown'))
      const after = await message(email)
      assert.equal(after.global_status, 6)
      assert.match(after.detail_status_explain, /User unknown/)
      assert.equal((await contact(email)).status, 9)
    })

    it('a DSN for a full mailbox ends the message (10) and leaves the contact active', async () => {
      const email = setup.emails[1]!
      await report(returnPathOf(email), dsn(email, '5.2.2', '552 5.2.2 Mailbox full'))
      assert.equal((await message(email)).global_status, 10)
      assert.equal((await contact(email)).status, 1)
    })

    it('an ARF complaint sent to the feedback address marks the message as spam (11) and unsubscribes the contact (6)', async () => {
      const email = setup.emails[2]!
      await report('fbl@bounces.example.org', arf(returnPathOf(email), email))
      assert.equal((await message(email)).global_status, 11)
      assert.equal((await contact(email)).status, 6)
    })

    it('refuses mail for addresses that are not ours, and a VERP address with a changed signature', async () => {
      await assert.rejects(report('someone@bounces.example.org', dsn('x@example.com', '5.1.1', '550 unknown')), /550/)
      const forged = returnPathOf(setup.emails[0]!).replace(/-([0-9a-f])/, (_, c: string) => `-${c === '0' ? '1' : '0'}`)
      await assert.rejects(report(forged, dsn(setup.emails[0]!, '5.1.1', '550 unknown')), /550/)
    })
  })
}
