// The MIME of outgoing emails is written into the SMTP connection as it was built, with no dot-stuffing pass:
// it must be SMTP data already (CRLF line ends, lines of at most 76 characters plus CRLF, no line starting with
// '.'), and decode to the very text and HTML that were rendered.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { simpleParser } from 'mailparser'
import { buildMime, prepareMimeFrame, type MimeMessage } from '../../../src/delivery/email/mime.js'
import { quotedPrintable } from '../../../src/delivery/email/quoted-printable.js'

const raw = (m: MimeMessage) => Buffer.concat([Buffer.from(m.head), Buffer.from('\r\n'), ...m.body])

/**
 * Checks what SMTP data must be (RFC 5321 4.5.2, 4.5.3.1.6): returns the broken lines. Quoted-printable lines
 * are held to 76 characters (RFC 2045 6.7), header lines to 998 (RFC 5322 2.1.1).
 */
function notSmtpData(bytes: Buffer, maxLine = 76): string[] {
  const text = bytes.toString('latin1')
  const problems: string[] = []
  if (/\r(?!\n)|(?<!\r)\n/.test(text)) problems.push('a bare CR or LF')
  if (!text.endsWith('\r\n')) problems.push('no CRLF at the end')
  for (const line of text.split('\r\n')) {
    if (line.startsWith('.')) problems.push(`starts with a dot: ${JSON.stringify(line)}`)
    if (line.length > maxLine) problems.push(`${line.length} characters: ${JSON.stringify(line)}`)
  }
  return problems
}

/** Quoted-printable content as a mail program reads it. */
async function decoded(qp: Buffer): Promise<string> {
  const mail = await simpleParser(Buffer.concat([Buffer.from('Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'), qp]))
  return mail.text ?? ''
}

const TRICKY_LINES = [
  '.',
  '..',
  '.hidden line after a dot',
  'a line that ends with spaces   ',
  'tab\tinside and at the end\t',
  `${'x'.repeat(74)}.then a dot that a soft break puts first on its line`,
  `${'y'.repeat(75)} = sign ==== and ${'.'.repeat(90)}`,
  'Привіт, світе — “quotes” ✓ and 𝄞 emoji 🎉 split nowhere '.repeat(4),
  '',
  '=?utf-8?Q?not_a_header?=',
]

describe('quoted-printable as SMTP data', () => {
  it('writes a leading dot as =2E, ends every line with CRLF, keeps lines to 76 characters', () => {
    for (const newline of ['\n', '\r\n', '\r']) {
      const encoded = quotedPrintable(TRICKY_LINES.join(newline) + newline)
      assert.deepEqual(notSmtpData(encoded), [], JSON.stringify(newline))
      assert.match(encoded.toString('latin1'), /^=2E\r\n=2E\.\r\n=2Ehidden/)
    }
  })

  it('decodes to the text it encoded, line breaks as CRLF', async () => {
    const text = TRICKY_LINES.join('\n')
    assert.equal(await decoded(quotedPrintable(text)), TRICKY_LINES.join('\n'))
    // A lone surrogate is no text: it becomes U+FFFD, as Buffer.from() writes it.
    assert.equal(await decoded(quotedPrintable('a\ud800b')), 'a\ufffdb')
  })

  it('keeps whitespace that ends a line or the text from being stripped on the way', () => {
    assert.equal(quotedPrintable('end  \nlast\t').toString('latin1'), 'end =20\r\nlast=09')
  })
})

describe('MIME of campaign and service emails', () => {
  it('is SMTP data as built, with every part as rendered', async () => {
    const text = TRICKY_LINES.join('\n')
    const html = `<p>\n.${TRICKY_LINES.join('<br>\n')}</p>\n.`
    const frame = prepareMimeFrame({ email: 'news@example.org', name: 'News, Inc.' }, [{ filename: 'a.txt', content: Buffer.from('.attached\n') }])
    const message = buildMime(frame, { from: { email: 'news@example.org', name: 'News, Inc.' }, to: 'reader@example.com', subject: '.Dotted — subject', html, text, amp: '.amp', headers: { 'List-Id': '<l1.a1.example.org>' } }, new Date())
    assert.deepEqual(notSmtpData(raw(message), 998), [])
    const mail = await simpleParser(raw(message))
    assert.equal(mail.text, text)
    assert.equal(mail.html, html)
    assert.equal(mail.subject, '.Dotted — subject')
    assert.equal(mail.messageId, message.messageId)
    assert.deepEqual(mail.attachments.filter((a) => a.filename).map((a) => a.content.toString()), ['.attached\n'])
  })

  it('refuses a recipient that would break the header', () => {
    const frame = prepareMimeFrame({ email: 'news@example.org', name: '' }, [])
    assert.throws(() => buildMime(frame, { from: { email: 'news@example.org', name: '' }, to: 'a@example.com\r\nBcc: b@example.com', subject: 's', html: '', text: '' }, new Date()), /cannot be written/)
  })
})
