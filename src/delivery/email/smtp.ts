// The SMTP channel: messages built as SMTP data (mime.ts; campaign messages arrive built, service emails are
// built here), DKIM-signed when configured (dkim.ts), written into a pool of connections kept open to the
// relay of `TIDINGS_SMTP_URL` (smtp-pool.ts, smtp-session.ts; the URL's rules in smtp-settings.ts). Answers map
// to results: 4xx and lost connections are temporary, 5xx permanent, each with the relay's code and text.
import type { EmailChannel, OutboundEmail, SendResult } from '../channel.js'
import { dkimSigner, type DkimOptions } from './dkim.js'
import { buildMime, prepareMimeFrame, type MimeMessage } from './mime.js'
import { SmtpPool } from './smtp-pool.js'
import type { SmtpError } from './smtp-replies.js'
import { poolOptionsOf } from './smtp-settings.js'

export interface SmtpOptions {
  url: string
  /** Connections kept open to the relay (the URL's maxConnections wins). */
  maxConnections?: number
  /** Signs every message (RFC 6376) when given. */
  dkim?: DkimOptions
  /** Lets an smtp:// URL with credentials go on without STARTTLS (TIDINGS_SMTP_INSECURE). */
  allowPlaintextAuth?: boolean
}

export function smtpChannel(options: SmtpOptions): EmailChannel {
  const pool = new SmtpPool(poolOptionsOf(options.url, options))
  const sign = options.dkim && dkimSigner(options.dkim)
  const sendOne = async (email: OutboundEmail): Promise<SendResult> => {
    let message: MimeMessage
    let head: string
    try {
      message = 'mime' in email ? email.mime : buildMime(prepareMimeFrame(email.from, email.attachments ?? []), email, new Date())
      head = sign ? sign(message) + message.head : message.head
    } catch (err) {
      return { ok: false, retryable: false, reason: `the message cannot be sent: ${(err as Error).message}` }
    }
    const providerId = message.messageId
    const delivery = await pool.send(email.returnPath ?? email.from.email, email.to, { head, body: message.body })
    return delivery.ok ? { ok: true, providerId } : failure(delivery.error)
  }
  return {
    name: 'smtp',
    send: (batch) => Promise.all(batch.map(sendOne)),
    close: () => pool.close(),
  }
}

/** A relay's refusal or a broken connection, as a result. */
function failure(error: SmtpError): SendResult {
  // No TLS with the relay (not offered, refused, a failed handshake) or refused credentials say nothing about
  // this message: it waits for the relay or the settings to be fixed, as for a lost connection.
  if (error.code === 'ETLS' || error.code === 'EAUTH') return { ok: false, retryable: true, reason: error.message }
  // An address that cannot be written in a command (a line break, brackets) will not be any better later.
  if (error.code === 'EENVELOPE' && !error.reply) return { ok: false, retryable: false, reason: error.message }
  if (error.reply && error.reply.code > 0) return { ok: false, retryable: error.reply.code < 500, code: error.reply.code, reason: error.reply.text }
  // No SMTP answer at all (refused or dropped connection, timeout): try again later.
  return { ok: false, retryable: true, reason: error.message }
}
