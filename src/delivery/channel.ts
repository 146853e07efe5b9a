// What every delivery channel offers (ARCHITECTURE.md "Channels"): a failed send is a value, not an exception.
import type { MimeMessage } from './email/mime.js'

/** An email as its parts: the channel builds its MIME (service emails: confirmations, activation codes). */
export interface EmailParts {
  from: { email: string; name: string }
  to: string
  subject: string
  html: string
  text: string
  /** Extra headers (List-Unsubscribe, List-Id, …). */
  headers?: Record<string, string>
  /** The envelope sender (VERP address for bounces); the From address when absent. */
  returnPath?: string
  /** Message-ID without angle brackets; the channel makes one when absent. */
  messageId?: string
  /** The AMP version (a text/x-amp-html part). */
  amp?: string
  /** Files, decoded once per campaign and shared by its messages. */
  attachments?: readonly { filename: string; content: Buffer }[]
}

/**
 * An email its sender built as SMTP data (campaign messages: delivery/email/mime.ts), with only what the
 * envelope needs beside it: the rendered text and HTML are not kept while the message waits for the relay.
 */
export interface BuiltEmail {
  from: { email: string; name: string }
  to: string
  returnPath?: string
  mime: MimeMessage
}

export type OutboundEmail = EmailParts | BuiltEmail

export type SendResult =
  | { ok: true; providerId: string; captured?: boolean }
  | { ok: false; retryable: boolean; code?: number; reason: string }

export interface EmailChannel {
  /** `smtp` or `capture` */
  readonly name: string
  send(batch: readonly OutboundEmail[]): Promise<SendResult[]>
  close(): Promise<void>
}

/** A failed send as one line: the relay's answer starts with its code already; a missing answer gets none. */
export function failureText(result: { code?: number; reason: string }): string {
  return result.code === undefined || result.reason.startsWith(String(result.code)) ? result.reason : `${result.code} ${result.reason}`
}
