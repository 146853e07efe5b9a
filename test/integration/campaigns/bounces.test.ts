// Reports that come back after sending, through the bounce listener: a DSN to a message's VERP address ends
// the message as its status code says and marks a hard-bounced contact; an ARF complaint marks the message
// as spam and unsubscribes the contact; addresses that are not ours are refused. The listener faces the whole
// internet: it keeps no more of a message than a report needs, and serves a limited number of connections.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
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
import { smtpDialogue } from '../../helpers/smtp-dialogue.js'
import { signingKey } from '../../../src/tracking/signing-key.js'
import { verpAddress } from '../../../src/tracking/message-links.js'

const MIB = 1024 * 1024

/**
 * A full garbage collection. The socket's read buffers the listener drops are garbage V8 collects only every
 * ~32 MiB of them (measured: RSS +34 MiB for a 50 MiB message and +37 MiB for a 200 MiB one, a plateau); the
 * test collects after every MiB so that RSS shows what the listener keeps, not when V8 gets round to it.
 */
const collectGarbage = (() => {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
})()

// First in this file, so that no earlier test's freed memory hides what the listener keeps (RSS rarely shrinks).
describe('the bounce listener facing the internet', () => {
  let t: TestApp
  let listener: BounceListener
  before(async () => {
    t = await startTestApp('sqlite', { bounceDomain: 'bounces.example.org', bouncePort: await freePort(), host: '127.0.0.1', bounceMaxClients: 3 })
    listener = await listenForBounces(t.deps)
  })
  after(async () => {
    await listener.close()
    await t.close()
  })

  it('advertises SIZE, keeps nothing of a 50 MB message past it and answers 552 at the end of DATA', async (ctx) => {
    const smtp = await smtpDialogue(listener.port)
    try {
      assert.match(await smtp.answer(), /^220 /)
      assert.match(await smtp.command('EHLO client.example'), /^250[ -]SIZE 2097152$/m)
      assert.match(await smtp.command('MAIL FROM:<> SIZE=52428800'), /^552 /, 'a declared size over the limit is refused at once')
      assert.match(await smtp.command('MAIL FROM:<>'), /^250 /)
      assert.match(await smtp.command('RCPT TO:<postmaster@bounces.example.org>'), /^250 /)
      assert.match(await smtp.command('DATA'), /^354 /)
      // One MiB of 64-byte lines, written 50 times: the test holds 1 MiB, whatever the listener keeps shows in RSS.
      const block = Buffer.from(`${'x'.repeat(62)}\r\n`.repeat(MIB / 64))
      collectGarbage()
      const before = process.memoryUsage.rss()
      let peak = before
      for (let i = 0; i < 50; i++) {
        await smtp.write(block)
        collectGarbage()
        peak = Math.max(peak, process.memoryUsage.rss())
      }
      assert.match(await smtp.command('.'), /^552 /)
      peak = Math.max(peak, process.memoryUsage.rss())
      ctx.diagnostic(`RSS before ${(before / MIB).toFixed(1)} MiB, peak ${(peak / MIB).toFixed(1)} MiB, growth ${((peak - before) / MIB).toFixed(1)} MiB`)
      assert.ok(peak - before < 10 * MIB, `RSS grew by ${((peak - before) / MIB).toFixed(1)} MiB`)
      assert.match(await smtp.command('QUIT'), /^221 /, 'the connection goes on after the refusal')
    } finally {
      smtp.close()
    }
  })

  it('serves at most TIDINGS_BOUNCE_MAX_CLIENTS connections at once and tells the next to come back (421)', async () => {
    const open = await Promise.all([1, 2, 3].map(() => smtpDialogue(listener.port)))
    try {
      for (const connection of open) assert.match(await connection.answer(), /^220 /)
      const extra = await smtpDialogue(listener.port)
      open.push(extra)
      assert.match(await extra.answer(), /^421 /)
      await extra.closed
    } finally {
      for (const connection of open) connection.close()
      await Promise.all(open.map((c) => c.closed))
    }
  })

  it('takes at most 100 distinct recipients for one message and answers the next 452', async () => {
    const key = await signingKey(t.deps)
    const smtp = await smtpDialogue(listener.port)
    try {
      assert.match(await smtp.answer(), /^220 /)
      assert.match(await smtp.command('EHLO client.example'), /^250 /m)
      assert.match(await smtp.command('MAIL FROM:<>'), /^250 /)
      // Signed VERP addresses of made-up message ids: each one is ours, so only the limit refuses them.
      for (let id = 1; id <= 100; id++) assert.match(await smtp.command(`RCPT TO:<${verpAddress(key, id, 'bounces.example.org')}>`), /^250 /, `recipient ${id}`)
      assert.match(await smtp.command(`RCPT TO:<${verpAddress(key, 101, 'bounces.example.org')}>`), /^452 /)
      assert.match(await smtp.command(`RCPT TO:<${verpAddress(key, 7, 'bounces.example.org')}>`), /^250 /, 'one already given is no new recipient')
      assert.match(await smtp.command('RSET'), /^250 /)
      assert.match(await smtp.command('MAIL FROM:<>'), /^250 /)
      assert.match(await smtp.command(`RCPT TO:<${verpAddress(key, 101, 'bounces.example.org')}>`), /^250 /, 'the next transaction starts afresh')
      assert.match(await smtp.command('QUIT'), /^221 /)
    } finally {
      smtp.close()
    }
  })
})

describe('a bounce listener connection that stays silent', () => {
  it('is closed after TIDINGS_BOUNCE_TIMEOUT', { timeout: 20_000 }, async () => {
    const t = await startTestApp('sqlite', { bouncePort: await freePort(), host: '127.0.0.1', bounceTimeoutSeconds: 1 })
    const listener = await listenForBounces(t.deps)
    const smtp = await smtpDialogue(listener.port)
    try {
      assert.match(await smtp.answer(), /^220 /)
      assert.match(await smtp.answer(), /^421 .*[Tt]imeout/)
      await smtp.closed
    } finally {
      smtp.close()
      await listener.close()
      await t.close()
    }
  })
})

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

    it('takes the feedback addresses (postmaster, abuse, fbl) only at the bounce domain', async () => {
      for (const to of ['postmaster@other.example', 'abuse@other.example', 'fbl@bounces.example.org.other.example']) {
        await assert.rejects(report(to, arf(returnPathOf(setup.emails[0]!), setup.emails[0]!)), /550/, to)
      }
      assert.match((await report('Postmaster@Bounces.Example.org', 'Subject: hello\r\n\r\nA question for the postmaster.\r\n')).response, /^250 /)
    })

    it('takes a VERP address only at the bounce domain, as a recipient and in the headers of a report', async () => {
      const email = setup.emails[1]!
      const [local] = returnPathOf(email).split('@')
      for (const domain of ['other.example', 'bounces.example.org.other.example']) {
        await assert.rejects(report(`${local}@${domain}`, dsn(email, '5.1.1', '550 unknown')), /550/, domain)
      }
      // A complaint sent to the feedback address names the message by its sender; at another domain, it names none.
      const [messageBefore, contactBefore] = [(await message(email)).global_status, (await contact(email)).status]
      assert.match((await report('fbl@bounces.example.org', arf(`${local}@other.example`, email))).response, /^250 /)
      assert.equal((await message(email)).global_status, messageBefore)
      assert.equal((await contact(email)).status, contactBefore)
    })

  })
}
