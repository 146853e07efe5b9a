// A campaign really sends: to a real SMTP server on loopback, each message once, personalised, with the
// headers a bulk email needs; temporary refusals retried, permanent ones ending the message and the contact.
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { campaignSetup, campaignStatus, createCampaign, dispatcher } from '../../helpers/campaigns.js'
import { smtpChannel } from '../../../src/delivery/email/smtp.js'
import type { EmailChannel } from '../../../src/delivery/channel.js'
import { allowAmp } from '../../../src/services/accounts/accounts.js'

for (const dialect of DIALECTS) {
  describe(`campaign sending on ${dialect}`, () => {
    let t: TestApp
    let sink: SmtpSink
    let channel: EmailChannel

    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100, publicUrl: 'https://news.example.org', bounceDomain: 'bounces.example.org' })
      sink = await startSmtpSink()
      channel = smtpChannel({ url: sink.url })
    })
    after(async () => {
      await channel.close()
      await sink.close()
      await t.close()
    })
    beforeEach(() => {
      sink.refuse = () => undefined
    })

    it('sends a campaign of 50 to every address once, personalised, with bulk headers, then ends it (13 → 2 → 3)', async () => {
      const setup = await campaignSetup(t, 50)
      const created = await createCampaign(t, setup, { name: 'Spring' })
      assert.equal(created.statusCode, 200, created.body)
      const answer = created.json<Record<string, unknown>>()
      assert.deepEqual(Object.keys(answer).sort(), ['count', 'id', 'ovedraft_currency', 'overdraft_currency', 'overdraft_price', 'status', 'tariff_email_qty'])
      assert.equal(answer.status, 13)
      assert.equal(answer.count, 50)
      assert.equal(answer.overdraft_price, '0.0044')
      const id = answer.id as number

      const d = dispatcher(t, channel, { batchSize: 20 })
      await d.jobs.runDue()
      assert.equal(await campaignStatus(t, setup, id), 2, '50 recipients pass the automatic moderation')
      await d.drain()
      assert.equal(await campaignStatus(t, setup, id), 3)

      const got = sink.received.filter((r) => setup.emails.includes(r.envelopeTo[0] ?? ''))
      assert.equal(got.length, 50)
      assert.equal(new Set(got.map((r) => r.envelopeTo[0])).size, 50, 'each address once')
      const first = got.find((r) => r.envelopeTo[0] === setup.emails[7])!
      const mail = first.mail
      assert.equal(mail.subject, 'Hi Reader 7')
      assert.match(String(mail.html), /<h1>Hello Reader 7<\/h1>/)
      assert.match(String(mail.text), /HELLO READER 7|Hello Reader 7/)
      assert.equal(mail.from?.value[0]?.address, setup.sender)
      assert.match(first.envelopeFrom, /^b-[0-9a-z]+-[0-9a-f]{16}@bounces\.example\.org$/, 'a VERP return path per message')
      assert.match(mail.messageId ?? '', /^<\d+\.\d+\.tidings@bounces\.example\.org>$/)
      const head = first.raw.toString('utf8').split('\r\n\r\n')[0]!.replace(/\r\n\s+/g, ' ')
      assert.match(head, /^List-Unsubscribe: <https:\/\/news\.example\.org\/t\/[^/\s]+\/unsubscribe>$/m)
      assert.match(head, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m)
      assert.match(head, new RegExp(`^List-Id: <l${setup.bookId}\\.a${setup.account.id}\\.bounces\\.example\\.org>$`, 'mi'))
      assert.doesNotMatch(String(mail.html), /shop\.example/, 'links go through the click tracker')
      assert.match(String(mail.html), /https:\/\/news\.example\.org\/t\/[^/]+\/c\/0/)
      assert.match(String(mail.html), /open\.gif/)
      assert.match(String(mail.html), /\/unsubscribe/, 'a template without {{unsubscribe_url}} gets an unsubscribe footer')

      const detail = (await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}` })).json<{ statistics: Record<string, unknown>; all_email_qty: number; name: string }>()
      assert.deepEqual(detail.statistics.general, [{ code: 2, count: 50, explain: 'Delivered' }])
      // The list item's totals, carried by the full record too (a Tidings extension the console's progress reads).
      const { general: _general, clicks: _clicks, ...totals } = detail.statistics
      assert.deepEqual(totals, { sent: 50, delivered: 50, opening: 0, link_redirected: 0, unsubscribe: 0, error: 0 })
      assert.equal(detail.all_email_qty, 50)
      assert.equal(detail.name, 'Spring')
      const books = (await t.call(setup.account, { method: 'GET', url: `/addressbooks/${setup.bookId}/campaigns` })).json()
      assert.deepEqual(books, [{ task_id: id, task_name: 'Spring', task_status: 3 }])
      const perAddress = (await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}/email/${setup.emails[3]}` })).json<Record<string, unknown>>()
      assert.equal(perAddress.global_status, 2)
      assert.equal(perAddress.global_status_explain, 'Delivered')
      assert.match(String(perAddress.send_date), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
      const stats = (await t.call(setup.account, { method: 'GET', url: `/emails/${setup.emails[3]}/campaigns` })).json<{ statistic: { sent: number } }>()
      assert.equal(stats.statistic.sent, 1)
    })

    it('keeps attachments, the AMP part and non-ASCII names and subjects intact in the MIME it builds', async () => {
      const setup = await campaignSetup(t, 2)
      await allowAmp(t.deps, setup.account.id, true)
      const amp = '<!doctype html><html ⚡4email><head><meta charset="utf-8"></head><body>AMP {{name}}</body></html>'
      const created = await createCampaign(t, setup, {
        sender_name: 'Новини, Ünïcode',
        subject: 'Привіт {{name}} – ✓',
        attachments: { 'notes.txt': 'plain text ✓' },
        attachments_binary: { 'data.bin': Buffer.from([0, 1, 2, 255]).toString('base64') },
        body_amp: Buffer.from(amp).toString('base64'),
      })
      assert.equal(created.statusCode, 200, created.body)
      await dispatcher(t, channel).drain()
      const mail = sink.received.find((r) => r.envelopeTo[0] === setup.emails[1])!.mail
      assert.equal(mail.subject, 'Привіт Reader 1 – ✓')
      assert.deepEqual(mail.from?.value.map((v) => v.name), ['Новини, Ünïcode'], 'one mailbox, its comma inside the name')
      // mailparser lists the AMP part among attachments, without a file name.
      assert.deepEqual(mail.attachments.filter((a) => a.filename).map((a) => [a.filename, a.content.toString('hex')]), [
        ['notes.txt', Buffer.from('plain text ✓').toString('hex')],
        ['data.bin', '000102ff'],
      ])
      assert.match(String(mail.html), /Hello Reader 1/)
      assert.match(String(mail.text), /Reader 1/)
      const raw = sink.received.find((r) => r.envelopeTo[0] === setup.emails[1])!.raw.toString()
      assert.match(raw, /Content-Type: text\/x-amp-html; charset=utf-8/)
      assert.match(raw.replace(/=\r\n/g, ''), /AMP Reader 1/)
    })

    it('quotes a sender name with specials, so From stays one mailbox', async () => {
      const setup = await campaignSetup(t, 1)
      assert.equal((await createCampaign(t, setup, { sender_name: 'Acme, Inc. "Shop"' })).statusCode, 200)
      await dispatcher(t, channel).drain()
      const mail = sink.received.find((r) => r.envelopeTo[0] === setup.emails[0])!.mail
      assert.deepEqual(mail.from?.value.map((v) => [v.name, v.address]), [['Acme, Inc. "Shop"', setup.sender]])
    })

    it('retries recipients refused with 451 and delivers them once the time comes', async () => {
      const setup = await campaignSetup(t, 5)
      const busy = new Set(setup.emails.slice(0, 2))
      sink.refuse = (rcpt) => (busy.has(rcpt) ? { code: 451, message: '4.3.0 Try again later' } : undefined)
      const id = (await createCampaign(t, setup)).json<{ id: number }>().id
      const d = dispatcher(t, channel)
      await d.drain()
      assert.equal(await campaignStatus(t, setup, id), 2, 'still sending while two wait for a retry')
      const waiting = await t.deps.db.selectFrom('messages').select(['address as email', 'status']).where('campaign_id', '=', id).where('status', '=', 7).execute()
      assert.deepEqual(waiting.map((m) => m.email).sort(), [...busy].sort())
      sink.refuse = () => undefined
      t.clock.advance(60_000)
      await d.drain()
      assert.equal(await campaignStatus(t, setup, id), 3)
      for (const email of busy) assert.equal(sink.received.filter((r) => r.envelopeTo[0] === email).length, 1)
    })

    it('ends a recipient refused with 550 5.1.1 as "no such email" and marks the contact with a sending error', async () => {
      const setup = await campaignSetup(t, 3)
      const gone = setup.emails[1]!
      sink.refuse = (rcpt) => (rcpt === gone ? { code: 550, message: '5.1.1 <' + gone + '>: Recipient address rejected: User unknown' } : undefined)
      const id = (await createCampaign(t, setup)).json<{ id: number }>().id
      await dispatcher(t, channel).drain()
      assert.equal(await campaignStatus(t, setup, id), 3)
      const message = (await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}/email/${gone}` })).json<Record<string, unknown>>()
      assert.equal(message.global_status, 6)
      assert.match(String(message.detail_status_explain), /User unknown/)
      const contact = (await t.call(setup.account, { method: 'GET', url: `/addressbooks/${setup.bookId}/emails/${gone}` })).json<{ status: number }>()
      assert.equal(contact.status, 9)
      const next = (await createCampaign(t, setup)).json<{ count: number }>()
      assert.equal(next.count, 2, 'the bounced address is no longer an active recipient')
    })

    it('loses nothing when the relay drops connections mid-batch: every message arrives once it is back', async () => {
      const setup = await campaignSetup(t, 12)
      const down = await startSmtpSink()
      const downChannel = smtpChannel({ url: down.url })
      await down.close()
      try {
        const id = (await createCampaign(t, setup)).json<{ id: number }>().id
        const d = dispatcher(t, downChannel)
        await d.drain()
        const waiting = await t.deps.db.selectFrom('messages').select('status').where('campaign_id', '=', id).execute()
        assert.deepEqual([...new Set(waiting.map((m) => m.status))], [7])
      } finally {
        await downChannel.close()
      }
      t.clock.advance(60_000)
      await dispatcher(t, channel).drain()
      for (const email of setup.emails) assert.equal(sink.received.filter((r) => r.envelopeTo[0] === email).length, 1, email)
    })

    it('loses nothing when the relay cuts its connections in the middle of a batch', async () => {
      const setup = await campaignSetup(t, 30)
      const before = sink.received.length
      sink.dropAfter = before + 10
      const id = (await createCampaign(t, setup)).json<{ id: number }>().id
      const d = dispatcher(t, channel)
      await d.drain()
      // nodemailer's pool sends what a cut connection held again on a new one; what it cannot is retried by us.
      assert.equal(sink.dropAfter, undefined, 'the connections were cut')
      t.clock.advance(60_000)
      await d.drain()
      assert.equal(await campaignStatus(t, setup, id), 3)
      const rows = await t.deps.db.selectFrom('messages').select('status').where('campaign_id', '=', id).execute()
      assert.deepEqual([...new Set(rows.map((r) => r.status))], [2])
      for (const email of setup.emails) assert.ok(sink.received.some((r) => r.envelopeTo[0] === email), `${email} arrived`)
    })

    it('ends a campaign whose lists hold no active address with status 12, and pays it all back', async () => {
      const setup = await campaignSetup(t, 2)
      await t.call(setup.account, { method: 'POST', url: `/addressbooks/${setup.bookId}/emails/unsubscribe`, payload: { emails: setup.emails } })
      const balance = async () => (await t.call(setup.account, { method: 'GET', url: '/balance' })).json<{ balance_currency: number }>().balance_currency
      const before = await balance()
      const created = (await createCampaign(t, setup)).json<{ id: number; count: number }>()
      assert.equal(created.count, 0)
      await dispatcher(t, channel).drain()
      assert.equal(await campaignStatus(t, setup, created.id), 12)
      assert.equal(await balance(), before)
    })

    it('stops a campaign canceled mid-send: nothing more goes out, the rest is "not sent" and paid back', async () => {
      const setup = await campaignSetup(t, 30)
      const balance = async () => (await t.call(setup.account, { method: 'GET', url: '/balance' })).json<{ balance_currency: number }>().balance_currency
      const before = await balance()
      const id = (await createCampaign(t, setup)).json<{ id: number }>().id
      const d = dispatcher(t, channel, { batchSize: 10 })
      await d.jobs.runDue()
      assert.equal(await d.sender.sendDue(), 10)
      const canceled = await t.call(setup.account, { method: 'DELETE', url: `/campaigns/${id}` })
      assert.deepEqual(canceled.json(), { result: true })
      await d.drain()
      assert.equal(await campaignStatus(t, setup, id), 16)
      assert.equal(sink.received.filter((r) => setup.emails.includes(r.envelopeTo[0] ?? '')).length, 10)
      const rows = await t.deps.db.selectFrom('messages').select('status').where('campaign_id', '=', id).execute()
      assert.equal(rows.filter((r) => r.status === 13).length, 20)
      assert.equal(Math.round((before - (await balance())) * 1e4), 10 * 44, 'only the 10 sent are paid')
      const again = await t.call(setup.account, { method: 'DELETE', url: `/campaigns/${id}` })
      assert.equal(again.statusCode, 422)
    })
  })
}
