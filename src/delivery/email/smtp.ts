// The SMTP channel: nodemailer's pooled transport to a relay (`TIDINGS_SMTP_URL`, smtp:// or smtps://, with
// STARTTLS when the relay offers it, and only with STARTTLS when the URL holds a password). Answers map to
// results: 4xx and lost connections are temporary, 5xx permanent, each with the relay's code and text.
import type nodemailer from 'nodemailer'
import { lazyRequire } from '../../lib/lazy-require.js'

// Loaded with the first SMTP channel: a process on the capture channel never needs nodemailer's transports.
const nodemailerPackage = lazyRequire<typeof nodemailer>('nodemailer')
import type { EmailChannel, OutboundEmail, SendResult } from '../channel.js'

export interface SmtpOptions {
  url: string
  /** Connections kept open to the relay. */
  maxConnections?: number
  /** Signs every message (RFC 6376) when given. */
  dkim?: { domainName: string; keySelector: string; privateKey: string }
  /** Lets an smtp:// URL with credentials go on without STARTTLS (TIDINGS_SMTP_INSECURE). */
  allowPlaintextAuth?: boolean
}

/**
 * The header fields the DKIM signature covers (those present in a message): nodemailer's default list, after
 * RFC 6376 5.4.1, with List-Unsubscribe-Post added. RFC 8058 4 requires it signed along with List-Unsubscribe,
 * and mailbox providers may ignore one-click unsubscribe otherwise.
 */
const DKIM_SIGNED_HEADERS = [
  'From', 'Sender', 'Reply-To', 'Subject', 'Date', 'Message-ID', 'To', 'Cc', 'MIME-Version', 'Content-Type',
  'Content-Transfer-Encoding', 'Content-ID', 'Content-Description', 'Resent-Date', 'Resent-From', 'Resent-Sender',
  'Resent-To', 'Resent-Cc', 'Resent-Message-ID', 'In-Reply-To', 'References', 'List-Id', 'List-Help',
  'List-Unsubscribe', 'List-Unsubscribe-Post', 'List-Subscribe', 'List-Post', 'List-Owner', 'List-Archive',
].join(':')

export function smtpChannel(options: SmtpOptions): EmailChannel {
  // nodemailer reads transport options from the URL's query: a pool unless the operator's URL says otherwise.
  const url = new URL(options.url)
  if (!url.searchParams.has('pool')) url.searchParams.set('pool', 'true')
  if (!url.searchParams.has('maxConnections')) url.searchParams.set('maxConnections', String(options.maxConnections ?? 10))
  // nodemailer's pool closes a connection after 100 messages by default; a campaign keeps it instead.
  if (!url.searchParams.has('maxMessages')) url.searchParams.set('maxMessages', 'Infinity')
  // Without it, a relay (or a man in the middle) that does not offer STARTTLS gets the password and the mail
  // in clear. nodemailer's requireTLS wins over ignoreTLS or opportunisticTLS in the URL.
  const hasCredentials = url.username !== '' || url.password !== ''
  if (url.protocol === 'smtp:' && hasCredentials && !options.allowPlaintextAuth) url.searchParams.set('requireTLS', 'true')
  const dkim = options.dkim && { ...options.dkim, headerFieldNames: DKIM_SIGNED_HEADERS }
  const transport = nodemailerPackage().createTransport(url.toString(), dkim ? { dkim } : {})
  const sendOne = async (email: OutboundEmail): Promise<SendResult> => {
    try {
      const envelope = { from: email.returnPath ?? email.from.email, to: email.to }
      if (email.raw !== undefined) {
        const info = await transport.sendMail({ raw: email.raw, envelope })
        return { ok: true, providerId: info.messageId }
      }
      const info = await transport.sendMail({
        from: { name: email.from.name, address: email.from.email },
        to: email.to,
        subject: email.subject,
        html: email.html,
        text: email.text,
        headers: email.headers,
        messageId: email.messageId && `<${email.messageId}>`,
        amp: email.amp,
        attachments: email.attachments?.map((a) => ({ filename: a.filename, content: a.content })),
        envelope,
      })
      return { ok: true, providerId: info.messageId }
    } catch (err) {
      return failure(err)
    }
  }
  return {
    name: 'smtp',
    send: (batch) => Promise.all(batch.map(sendOne)),
    close: async () => transport.close(),
  }
}

/** A relay's refusal or a broken connection, as a result. */
function failure(err: unknown): SendResult {
  const { responseCode, response, message, code } = err as { responseCode?: number; response?: string; message?: string; code?: string }
  // No TLS with the relay (a 5xx answer to STARTTLS, a failed handshake) says nothing about this message: it
  // waits for the relay or the settings to be fixed, as for a lost connection.
  if (code === 'ETLS') return { ok: false, retryable: true, reason: message ?? 'STARTTLS failed' }
  if (typeof responseCode === 'number') {
    return { ok: false, retryable: responseCode < 500, code: responseCode, reason: response ?? message ?? `SMTP ${responseCode}` }
  }
  // No SMTP answer at all (refused or dropped connection, timeout): try again later.
  return { ok: false, retryable: true, reason: message ?? String(err) }
}
