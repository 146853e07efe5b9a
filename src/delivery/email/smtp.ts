// The SMTP channel: nodemailer's pooled transport to a relay (`TIDINGS_SMTP_URL`, smtp:// or smtps://, with
// STARTTLS when the relay offers it). Answers map to results: 4xx and lost connections are temporary, 5xx
// permanent, each with the relay's code and text.
import nodemailer from 'nodemailer'
import type { EmailChannel, OutboundEmail, SendResult } from '../channel.js'

export interface SmtpOptions {
  url: string
  /** Connections kept open to the relay. */
  maxConnections?: number
  /** Signs every message (RFC 6376) when given. */
  dkim?: { domainName: string; keySelector: string; privateKey: string }
}

export function smtpChannel(options: SmtpOptions): EmailChannel {
  // nodemailer reads transport options from the URL's query: a pool unless the operator's URL says otherwise.
  const url = new URL(options.url)
  if (!url.searchParams.has('pool')) url.searchParams.set('pool', 'true')
  if (!url.searchParams.has('maxConnections')) url.searchParams.set('maxConnections', String(options.maxConnections ?? 10))
  // nodemailer's pool closes a connection after 100 messages by default; a campaign keeps it instead.
  if (!url.searchParams.has('maxMessages')) url.searchParams.set('maxMessages', 'Infinity')
  const transport = nodemailer.createTransport(url.toString(), options.dkim ? { dkim: options.dkim } : {})
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
  const { responseCode, response, message } = err as { responseCode?: number; response?: string; message?: string }
  if (typeof responseCode === 'number') {
    return { ok: false, retryable: responseCode < 500, code: responseCode, reason: response ?? message ?? `SMTP ${responseCode}` }
  }
  // No SMTP answer at all (refused or dropped connection, timeout): try again later.
  return { ok: false, retryable: true, reason: message ?? String(err) }
}
