// DKIM signing (RFC 6376, rsa-sha256, relaxed/relaxed) of a message built as SMTP data (mime.ts): the body hash
// over its pieces, then nodemailer's own signature header builder over the header lines. Signed before the
// message goes into the connection, over the bytes that go (the message needs no dot-stuffing). The key is
// parsed once: an RSA signature is ~1 ms a message anyway, re-reading the PEM each time would add to it.
import { createHash, createPrivateKey, type KeyObject } from 'node:crypto'
import type signHeadersFunction from 'nodemailer/lib/dkim/sign.js'
import { lazyRequire } from '../../lib/lazy-require.js'
import type { MimeMessage } from './mime.js'

export interface DkimOptions {
  domainName: string
  keySelector: string
  /** PEM text. */
  privateKey: string
}

/**
 * The header fields the signature covers (those present in a message): nodemailer's default list, after
 * RFC 6376 5.4.1, with List-Unsubscribe-Post added. RFC 8058 4 requires it signed along with List-Unsubscribe,
 * and mailbox providers may ignore one-click unsubscribe otherwise.
 */
const SIGNED_HEADERS = [
  'From', 'Sender', 'Reply-To', 'Subject', 'Date', 'Message-ID', 'To', 'Cc', 'MIME-Version', 'Content-Type',
  'Content-Transfer-Encoding', 'Content-ID', 'Content-Description', 'Resent-Date', 'Resent-From', 'Resent-Sender',
  'Resent-To', 'Resent-Cc', 'Resent-Message-ID', 'In-Reply-To', 'References', 'List-Id', 'List-Help',
  'List-Unsubscribe', 'List-Unsubscribe-Post', 'List-Subscribe', 'List-Post', 'List-Owner', 'List-Archive',
].join(':')

// nodemailer's signature header builder, loaded with the first signer: most processes sign nothing.
const signHeadersPackage = lazyRequire<typeof signHeadersFunction>('nodemailer/lib/dkim/sign')

/** Returns the DKIM-Signature header line (CRLF-terminated) to put before a message's head. */
export function dkimSigner(options: DkimOptions): (message: MimeMessage) => string {
  const signHeaders = signHeadersPackage()
  const privateKey: KeyObject = createPrivateKey(options.privateKey)
  return (message) => {
    const signature = signHeaders(headerLines(message.head), 'sha256', relaxedBodyHash(message.body), {
      domainName: options.domainName,
      keySelector: options.keySelector,
      privateKey,
      headerFieldNames: SIGNED_HEADERS,
    })
    if (signature === false) throw new Error('the DKIM key cannot sign')
    return `${signature}\r\n`
  }
}

/** The head as nodemailer's signer reads it: one entry per field, folds kept, one character per byte. */
function headerLines(head: string): { key: string; line: string }[] {
  const bytes = /[^\x00-\x7f]/.test(head) ? Buffer.from(head, 'utf8').toString('latin1') : head
  return bytes
    .split(/\r\n(?![ \t])/)
    .filter((line) => line !== '')
    .map((line) => ({ key: line.slice(0, line.indexOf(':')).trim().toLowerCase(), line }))
}

/**
 * RFC 6376 3.4.4: whitespace at the end of lines dropped, runs of it inside lines made one space, empty lines
 * at the end dropped, and a non-empty body ending with CRLF.
 */
function relaxedBodyHash(body: readonly Buffer[]): string {
  const canonical = Buffer.concat(body)
    .toString('latin1')
    .replace(/[ \t]+(?=\r\n|$)/g, '')
    .replace(/[ \t]+/g, ' ')
    .replace(/(\r\n)+$/, '')
  return createHash('sha256')
    .update(canonical === '' ? '' : `${canonical}\r\n`, 'latin1')
    .digest('base64')
}
