// DKIM signing of outgoing email: the signature a receiver would check (RFC 6376, relaxed/relaxed) verifies
// against the public key, over the body and the signed headers as received by a real SMTP server.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, createVerify, generateKeyPairSync } from 'node:crypto'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { emailChannel } from '../../../src/delivery/registry.js'
import { buildMime, prepareMimeFrame } from '../../../src/delivery/email/mime.js'

/** RFC 6376 3.4.4: relaxed body canonicalisation. */
function relaxedBody(body: string): string {
  const lines = body.split('\r\n').map((line) => line.replace(/[ \t]+/g, ' ').replace(/ $/, ''))
  while (lines.length > 0 && lines.at(-1) === '') lines.pop()
  return lines.length === 0 ? '' : `${lines.join('\r\n')}\r\n`
}

/** RFC 6376 3.4.2: relaxed header canonicalisation. */
function relaxedHeader(name: string, value: string): string {
  return `${name.toLowerCase()}:${value.replace(/\r\n/g, '').replace(/[ \t]+/g, ' ').trim()}`
}

function verifyDkim(raw: string, publicKey: string): { domain: string; selector: string; valid: boolean; bodyHashMatches: boolean } {
  const [head = '', ...rest] = raw.split('\r\n\r\n')
  const body = rest.join('\r\n\r\n')
  const headers = head.split(/\r\n(?![ \t])/).map((line) => {
    const colon = line.indexOf(':')
    return { name: line.slice(0, colon), value: line.slice(colon + 1) }
  })
  const signature = headers.find((h) => h.name.toLowerCase() === 'dkim-signature')
  assert.ok(signature, 'a DKIM-Signature header')
  const tags = Object.fromEntries(signature.value.replace(/\s+/g, '').split(';').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]))
  assert.equal(tags.c, 'relaxed/relaxed')
  const bodyHash = createHash('sha256').update(relaxedBody(body)).digest('base64')
  // Each signed name takes the last not yet used instance of that header (RFC 6376 5.4.2).
  const used = new Map<string, number>()
  const signed = String(tags.h).split(':').map((name) => {
    const instances = headers.filter((h) => h.name.toLowerCase() === name.toLowerCase())
    const seen = used.get(name.toLowerCase()) ?? 0
    used.set(name.toLowerCase(), seen + 1)
    const header = instances[instances.length - 1 - seen]
    return header ? `${relaxedHeader(header.name, header.value)}\r\n` : ''
  })
  const unsigned = relaxedHeader(signature.name, signature.value.replace(/\bb=[^;]*/, 'b='))
  const verifier = createVerify('RSA-SHA256')
  verifier.update(signed.join('') + unsigned)
  return { domain: String(tags.d), selector: String(tags.s), bodyHashMatches: bodyHash === tags.bh, valid: verifier.verify(publicKey, String(tags.b), 'base64') }
}

describe('DKIM signing', () => {
  let sink: SmtpSink
  before(async () => {
    sink = await startSmtpSink()
  })
  after(() => sink.close())

  it('signs every message so that the signature verifies with the published key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } })
    const channel = emailChannel({ smtpUrl: sink.url, smtpInsecure: false, dkimDomain: 'example.org', dkimSelector: 'mail2026', dkimPrivateKey: privateKey })
    try {
      const [result] = await channel.send([
        { from: { email: 'news@example.org', name: 'News' }, to: 'reader@example.com', subject: 'Signed  subject', html: '<p>Hello   there</p>\n\n', text: 'Hello   there\n\n\n' },
      ])
      assert.equal(result?.ok, true)
      const received = sink.received.find((r) => r.envelopeTo.includes('reader@example.com'))
      assert.ok(received)
      const check = verifyDkim(received.raw.toString('latin1'), publicKey)
      assert.deepEqual(check, { domain: 'example.org', selector: 'mail2026', bodyHashMatches: true, valid: true })
      // The check can fail: the same message with its subject changed no longer verifies.
      const tampered = received.raw.toString('latin1').replace('Subject: Signed', 'Subject: Forged')
      assert.equal(verifyDkim(tampered, publicKey).valid, false)
    } finally {
      await channel.close()
    }
  })

  it('signs campaign messages whose MIME Tidings built itself', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } })
    const channel = emailChannel({ smtpUrl: sink.url, smtpInsecure: false, dkimDomain: 'example.org', dkimSelector: 'mail2026', dkimPrivateKey: privateKey })
    try {
      const from = { email: 'news@example.org', name: 'Новини' }
      const email = { from, to: 'campaign@example.com', subject: 'Привіт', html: '<p>Hello</p>', text: 'Hello', messageId: '1.1.tidings@example.org', headers: { 'List-Id': '<l1.a1.example.org>' } }
      const mime = buildMime(prepareMimeFrame(from, [{ filename: 'a.txt', content: Buffer.from('x') }]), email, new Date())
      const [result] = await channel.send([{ ...email, mime }])
      assert.equal(result?.ok, true)
      const received = sink.received.find((r) => r.envelopeTo.includes('campaign@example.com'))
      assert.ok(received, 'the campaign message arrived')
      assert.deepEqual(verifyDkim(received.raw.toString('latin1'), publicKey), { domain: 'example.org', selector: 'mail2026', bodyHashMatches: true, valid: true })
    } finally {
      await channel.close()
    }
  })

  it('refuses a domain without a key at start, not at the first email', () => {
    assert.throws(() => emailChannel({ smtpUrl: sink.url, smtpInsecure: false, dkimDomain: 'example.org', dkimSelector: 's', dkimPrivateKey: '' }), /TIDINGS_DKIM_PRIVATE_KEY/)
  })
})
