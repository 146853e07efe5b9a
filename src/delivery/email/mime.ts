// The MIME text of outgoing emails, built by hand from parts prepared once per campaign, as the SMTP data it
// will be: CRLF line ends and no line starting with '.', so it goes into the connection as it is (smtp-session.ts)
// and DKIM signs the bytes that are sent. nodemailer's composer cost ~780 µs a message, this ~150 µs and less.
// What changes per recipient — To, Subject, the ids and links in the headers, the text and HTML — is encoded
// per message (quoted-printable.ts); the From header, the part headers with their boundaries and the Base64 of
// attachments are the same for every message of a campaign and are built once, as Buffers that every message's
// body reuses without a copy.
import { randomBytes, randomUUID } from 'node:crypto'
import type * as MimeFuncs from 'nodemailer/lib/mime-funcs/index.js'
import { lazyRequire } from '../../lib/lazy-require.js'
import type { EmailParts } from '../channel.js'
import { quotedPrintable } from './quoted-printable.js'

// nodemailer's header encoders, loaded by the first message built: a process that sends no email never needs them.
const mimeFuncsPackage = lazyRequire<typeof MimeFuncs>('nodemailer/lib/mime-funcs')

/** A message as SMTP data: `head` and `body` joined by an empty line make the message. */
export interface MimeMessage {
  /** The header lines, each ending with CRLF. */
  head: string
  /** The body in pieces: CRLF line ends, no line starting with '.', the last piece ending with CRLF. */
  body: readonly Buffer[]
  /** The Message-ID header's value, angle brackets included. */
  messageId: string
}

export interface MimeFrame {
  /** Header lines shared by every message (From, MIME-Version), CRLF-terminated. */
  head: string
  /** The Content-Type header of the whole message. */
  contentType: string
  /** What comes before the text part's content: the opening boundary (of the mixed part too) and part headers. */
  textStart: Buffer
  /** Between the text and the AMP part's content. */
  ampStart: Buffer
  /** Between the previous part and the HTML part's content. */
  htmlStart: Buffer
  /** After the HTML: the closing boundary, then the attachments and the mixed part's close when there are any. */
  end: Buffer
}

const CRLF = '\r\n'

export function prepareMimeFrame(from: { email: string; name: string }, attachments: readonly { filename: string; content: Buffer }[]): MimeFrame {
  // `=_` cannot occur in quoted-printable or Base64 text, so content can never contain the boundary.
  const boundary = `=_tidings_${randomBytes(12).toString('hex')}`
  const fromHeader = from.name ? `${displayName(from.name)} <${from.email}>` : from.email
  const head = header('From', fromHeader) + 'MIME-Version: 1.0' + CRLF
  const alternative = `${boundary}-a`
  const mixed = `${boundary}-m`
  const textPart = partHeaders(alternative, 'text/plain')
  const ampStart = CRLF + partHeaders(alternative, 'text/x-amp-html')
  const htmlStart = CRLF + partHeaders(alternative, 'text/html')
  const closeAlternative = `${CRLF}--${alternative}--${CRLF}`
  if (attachments.length === 0) {
    return {
      head,
      contentType: header('Content-Type', `multipart/alternative; boundary="${alternative}"`),
      textStart: Buffer.from(textPart),
      ampStart: Buffer.from(ampStart),
      htmlStart: Buffer.from(htmlStart),
      end: Buffer.from(closeAlternative),
    }
  }
  const attachmentParts = attachments.map((a) => {
    const name = mimeFuncsPackage().encodeWords(a.filename, 'Q', 52)
    const type = mimeFuncsPackage().detectMimeType(a.filename)
    return (
      `--${mixed}${CRLF}` +
      `Content-Type: ${type}; name="${name}"${CRLF}` +
      `Content-Transfer-Encoding: base64${CRLF}` +
      `Content-Disposition: attachment; filename="${name}"${CRLF}${CRLF}` +
      wrapBase64(a.content.toString('base64')) +
      CRLF
    )
  })
  return {
    head,
    contentType: header('Content-Type', `multipart/mixed; boundary="${mixed}"`),
    textStart: Buffer.from(`--${mixed}${CRLF}Content-Type: multipart/alternative; boundary="${alternative}"${CRLF}${CRLF}` + textPart),
    ampStart: Buffer.from(ampStart),
    htmlStart: Buffer.from(htmlStart),
    end: Buffer.from(closeAlternative + attachmentParts.join('') + `--${mixed}--${CRLF}`),
  }
}

/** The whole message. Throws for a recipient address that cannot be written in a header. */
export function buildMime(frame: MimeFrame, email: EmailParts, date: Date): MimeMessage {
  // Stored addresses may hold Unicode (SMTPUTF8) or a quoted local part; a line break would start a new header.
  if (/[\x00-\x1f\x7f]/.test(email.to)) throw new Error(`${JSON.stringify(email.to)} cannot be written as a recipient`)
  const messageId = `<${email.messageId ?? `${randomUUID()}@${domainOf(email.from.email)}`}>`
  let head =
    frame.head +
    header('To', email.to) +
    header('Subject', mimeFuncsPackage().encodeWords(email.subject, 'Q', 52)) +
    header('Date', date.toUTCString().replace(/GMT$/, '+0000')) +
    header('Message-ID', messageId)
  for (const [name, value] of Object.entries(email.headers ?? {})) head += header(name, value)
  head += frame.contentType
  const body = [frame.textStart, quotedPrintable(email.text)]
  if (email.amp !== undefined) body.push(frame.ampStart, quotedPrintable(email.amp))
  body.push(frame.htmlStart, quotedPrintable(email.html), frame.end)
  return { head, body, messageId }
}

/** RFC 5322: a name with specials (`Acme, Inc.`) is quoted, or it reads as two mailboxes; non-ASCII is encoded. */
function displayName(name: string): string {
  const clean = name.replace(/[\r\n]+/g, ' ')
  if (/[^\x20-\x7e]/.test(clean)) return mimeFuncsPackage().encodeWords(clean, 'Q', 52, true)
  return /[()<>[\]:;@\\,."]/.test(clean) ? `"${clean.replace(/(["\\])/g, '\\$1')}"` : clean
}

/** A header line, folded at 76: a folded line starts with whitespace, never with '.'. */
function header(name: string, value: string): string {
  return mimeFuncsPackage().foldLines(`${name}: ${value.replace(/[\r\n]+/g, ' ')}`, 76) + CRLF
}

function partHeaders(boundary: string, type: string): string {
  return `--${boundary}${CRLF}Content-Type: ${type}; charset=utf-8${CRLF}Content-Transfer-Encoding: quoted-printable${CRLF}${CRLF}`
}

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1) || 'localhost'
}

function wrapBase64(text: string): string {
  let out = ''
  for (let i = 0; i < text.length; i += 76) out += text.slice(i, i + 76) + CRLF
  return out
}
