// The List-Unsubscribe of a real campaign email as mailbox providers read it: DKIM covers it and its
// List-Unsubscribe-Post (RFC 8058 4, checked by an independent verifier, mailauth), and next to the one-click
// URL it offers a mailto: address (RFC 2369) that the bounce listener turns into the same unsubscribe.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import nodemailer from 'nodemailer'
import { dkimVerify } from 'mailauth'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { freePort } from '../../helpers/postgres.js'
import { campaignSetup, createCampaign, dispatcher, type CampaignSetup } from '../../helpers/campaigns.js'
import { emailChannel } from '../../../src/delivery/registry.js'
import { listenForBounces } from '../../../src/main.js'
import type { BounceListener } from '../../../src/delivery/email/bounce-listener.js'

const SELECTOR = 's2026'
const DKIM_DOMAIN = 'sender.example'

/** The message's header as received, folded lines joined. */
function headerOf(raw: Buffer, name: string): string | undefined {
  const head = raw.toString('latin1').split('\r\n\r\n')[0]!.replace(/\r\n[ \t]+/g, ' ')
  return new RegExp(`^${name}: (.*)$`, 'mi').exec(head)?.[1]
}

for (const dialect of DIALECTS) {
  describe(`List-Unsubscribe of campaign emails on ${dialect}`, () => {
    let t: TestApp
    let sink: SmtpSink
    let listener: BounceListener
    let setup: CampaignSetup
    let id: number
    const keys = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'der' } })
    const received = (email: string) => sink.received.find((r) => r.envelopeTo[0] === email)!
    const mailtoOf = (email: string) => {
      const header = headerOf(received(email).raw, 'List-Unsubscribe')
      const mailto = header && /<mailto:([^>?]+)(\?[^>]*)?>/.exec(header)
      assert.ok(mailto, `a mailto: in List-Unsubscribe: ${header}`)
      return mailto[1]!
    }
    const mail = async (to: string, from: string) => {
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: listener.port, secure: false, ignoreTLS: true })
      try {
        return await transport.sendMail({ envelope: { from, to }, raw: `From: ${from}\r\nTo: ${to}\r\nSubject: unsubscribe\r\n\r\nunsubscribe\r\n` })
      } finally {
        transport.close()
      }
    }
    const contactStatus = async (email: string) => (await t.call(setup.account, { method: 'GET', url: `/addressbooks/${setup.bookId}/emails/${email}` })).json<{ status: number }>().status
    const messageStatus = async (email: string) => (await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}/email/${email}` })).json<{ global_status: number }>().global_status

    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100, publicUrl: 'https://news.example.org', bounceDomain: 'bounces.example.org', bouncePort: await freePort(), host: '127.0.0.1' })
      sink = await startSmtpSink()
      listener = await listenForBounces(t.deps)
      setup = await campaignSetup(t, 3)
      id = (await createCampaign(t, setup)).json<{ id: number }>().id
      const channel = emailChannel({ ...t.deps.config, smtpUrl: sink.url, dkimDomain: DKIM_DOMAIN, dkimSelector: SELECTOR, dkimPrivateKey: keys.privateKey })
      await dispatcher(t, channel).drain()
      await channel.close()
    })
    after(async () => {
      await listener.close()
      await sink.close()
      await t.close()
    })

    it('signs List-Unsubscribe and List-Unsubscribe-Post (RFC 8058 4), as an independent verifier finds', async () => {
      const resolver = async (name: string, type: string) => {
        if (name === `${SELECTOR}._domainkey.${DKIM_DOMAIN}` && type === 'TXT') return [[`v=DKIM1; k=rsa; p=${keys.publicKey.toString('base64')}`]]
        throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' })
      }
      const raw = received(setup.emails[0]!).raw
      const { results } = await dkimVerify(raw, { resolver })
      assert.equal(results.length, 1)
      assert.equal(results[0]!.status.result, 'pass', results[0]!.status.comment || undefined)
      assert.equal(results[0]!.signingDomain, DKIM_DOMAIN)
      const signed = /\bh=([^;]+)/.exec(headerOf(raw, 'DKIM-Signature')!)![1]!.replace(/\s+/g, '').toLowerCase().split(':')
      assert.ok(signed.includes('list-unsubscribe'), `h= ${signed.join(':')}`)
      assert.ok(signed.includes('list-unsubscribe-post'), `h= ${signed.join(':')}`)
    })

    it('offers a mailto: next to the one-click URL; mail to it unsubscribes the reader as the one-click POST does', async () => {
      const email = setup.emails[1]!
      const header = headerOf(received(email).raw, 'List-Unsubscribe')!
      assert.match(header, /^<https:\/\/news\.example\.org\/t\/[^>]+\/unsubscribe>, <mailto:[^>]+@bounces\.example\.org\?subject=unsubscribe>$/)
      assert.equal(headerOf(received(email).raw, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click')
      assert.equal(await contactStatus(email), 1)
      const accepted = await mail(mailtoOf(email), email)
      assert.match(accepted.response, /^250 /)
      assert.equal(await contactStatus(email), 4)
      assert.equal(await messageStatus(email), 5)
      assert.equal(await contactStatus(setup.emails[2]!), 1, 'nobody else left the list')
    })

    it('refuses a forged or garbled unsubscribe address and changes nothing', async () => {
      const email = setup.emails[2]!
      const address = mailtoOf(email)
      // Another message's id with this message's MAC, a changed MAC, a cut-off one: none is ours.
      const otherMessage = address.replace(/\+([0-9a-z]+)-/, (_, id: string) => `+${(parseInt(id, 36) + 1).toString(36)}-`)
      const changedMac = address.replace(/([0-9a-f])@/, (_, c: string) => `${c === '0' ? '1' : '0'}@`)
      const cut = address.replace(/[0-9a-f]@/, '@')
      for (const forged of [otherMessage, changedMac, cut, address.replace('@bounces.example.org', '@other.example')]) {
        assert.notEqual(forged, address)
        await assert.rejects(mail(forged, email), /550/, forged)
      }
      assert.equal(await contactStatus(email), 1)
      assert.equal(await contactStatus(setup.emails[0]!), 1)
      assert.equal(await messageStatus(email), 2)
    })
  })
}
