// The MIME text of campaign messages, built by hand from parts prepared once per campaign: nodemailer's
// composer costs ~780 µs a message here (most of the CPU of a campaign), this ~150 µs. What changes per
// recipient — To, Subject, the ids and links in the headers, the text and HTML — is encoded per message
// (quoted-printable, with nodemailer's own encoders); the From header, the multipart boundaries and the
// Base64 of attachments are the same for every message of a campaign and are built once.
import { randomBytes } from 'node:crypto'
import type * as MimeFuncs from 'nodemailer/lib/mime-funcs/index.js'
import type * as Qp from 'nodemailer/lib/qp/index.js'
import { lazyRequire } from '../../lib/lazy-require.js'
import type { OutboundEmail } from '../channel.js'

// nodemailer's encoders, loaded by the first message built (as smtp.ts loads the rest of nodemailer).
const mimeFuncsPackage = lazyRequire<typeof MimeFuncs>('nodemailer/lib/mime-funcs')
const qpPackage = lazyRequire<typeof Qp>('nodemailer/lib/qp')

export interface MimeFrame {
  /** Header lines shared by every message (From, MIME-Version), CRLF-terminated. */
  head: string
  /** `=_` cannot occur in quoted-printable or Base64 text, so content can never contain the boundary. */
  boundary: string
  /** The encoded attachment parts and the closing of the mixed part, or '' without attachments. */
  attachmentParts: string
}

const CRLF = '\r\n'

export function prepareMimeFrame(from: { email: string; name: string }, attachments: readonly { filename: string; content: Buffer }[]): MimeFrame {
  const boundary = `=_tidings_${randomBytes(12).toString('hex')}`
  const fromHeader = from.name ? `${displayName(from.name)} <${from.email}>` : from.email
  const head = header('From', fromHeader) + 'MIME-Version: 1.0' + CRLF
  const attachmentParts = attachments
    .map((a) => {
      const name = mimeFuncsPackage().encodeWords(a.filename, 'Q', 52)
      const type = mimeFuncsPackage().detectMimeType(a.filename)
      return (
        `--${boundary}-m${CRLF}` +
        `Content-Type: ${type}; name="${name}"${CRLF}` +
        `Content-Transfer-Encoding: base64${CRLF}` +
        `Content-Disposition: attachment; filename="${name}"${CRLF}${CRLF}` +
        wrapBase64(a.content.toString('base64')) +
        CRLF
      )
    })
    .join('')
  return { head, boundary, attachmentParts: attachments.length > 0 ? attachmentParts + `--${boundary}-m--${CRLF}` : '' }
}

/** The whole message; undefined when an address needs more than this builder does (SMTPUTF8). */
export function buildMime(frame: MimeFrame, email: OutboundEmail, date: Date): string | undefined {
  if (!/^[\x21-\x7e]+$/.test(email.to)) return undefined
  let head = frame.head + header('To', email.to) + header('Subject', mimeFuncsPackage().encodeWords(email.subject, 'Q', 52)) + header('Date', date.toUTCString().replace(/GMT$/, '+0000'))
  if (email.messageId) head += header('Message-ID', `<${email.messageId}>`)
  for (const [name, value] of Object.entries(email.headers ?? {})) head += header(name, value)
  const alternative =
    `--${frame.boundary}-a${CRLF}` +
    part('text/plain', email.text) +
    `--${frame.boundary}-a${CRLF}` +
    (email.amp === undefined ? '' : part('text/x-amp-html', email.amp) + `--${frame.boundary}-a${CRLF}`) +
    part('text/html', email.html) +
    `--${frame.boundary}-a--${CRLF}`
  if (!frame.attachmentParts) return head + `Content-Type: multipart/alternative; boundary="${frame.boundary}-a"${CRLF}${CRLF}` + alternative
  return (
    head +
    `Content-Type: multipart/mixed; boundary="${frame.boundary}-m"${CRLF}${CRLF}` +
    `--${frame.boundary}-m${CRLF}` +
    `Content-Type: multipart/alternative; boundary="${frame.boundary}-a"${CRLF}${CRLF}` +
    alternative +
    frame.attachmentParts
  )
}

/** RFC 5322: a name with specials (`Acme, Inc.`) is quoted, or it reads as two mailboxes; non-ASCII is encoded. */
function displayName(name: string): string {
  const clean = name.replace(/[\r\n]+/g, ' ')
  if (/[^\x20-\x7e]/.test(clean)) return mimeFuncsPackage().encodeWords(clean, 'Q', 52, true)
  return /[()<>[\]:;@\\,."]/.test(clean) ? `"${clean.replace(/(["\\])/g, '\\$1')}"` : clean
}

function header(name: string, value: string): string {
  return mimeFuncsPackage().foldLines(`${name}: ${value.replace(/[\r\n]+/g, ' ')}`, 76) + CRLF
}

function part(type: string, content: string): string {
  return `Content-Type: ${type}; charset=utf-8${CRLF}Content-Transfer-Encoding: quoted-printable${CRLF}${CRLF}${qpPackage().wrap(qpPackage().encode(content), 76)}${CRLF}`
}

function wrapBase64(text: string): string {
  let out = ''
  for (let i = 0; i < text.length; i += 76) out += text.slice(i, i + 76) + CRLF
  return out
}
