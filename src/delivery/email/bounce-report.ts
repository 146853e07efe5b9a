// Reads what arrives at the return path: a bounce as a delivery status notification (RFC 3464) or a
// complaint from a feedback loop (RFC 5965, ARF). Only their machine-readable parts count; a human reply or
// an auto-reply carries none and is not a report.
import { simpleParser, type Attachment } from 'mailparser'
import { classifySmtpAnswer, enhancedCodeOf, StatisticCode } from './smtp-answer.js'

export type DsnAction = 'failed' | 'delayed' | 'delivered' | 'relayed' | 'expanded'

export interface DsnRecipient {
  /** The Final-Recipient address, without its `rfc822;` type. */
  recipient: string
  action: DsnAction
  /** The enhanced status code (5.1.1). */
  status?: string
  /** The Diagnostic-Code without its `smtp;` type, folded lines joined: usually the remote server's answer. */
  diagnostic?: string
  statisticCode: number
  /** The address or its domain is bad: mark the contact bounced. */
  hard: boolean
}

/** What the report carries of the message it is about: ours, so our own headers can identify it. */
export interface ReturnedMessage {
  /** Message-ID of the returned message, angle brackets included. */
  returnedMessageId?: string
  /** Its header fields by lower-case name, the first of repeated ones, values unfolded but not decoded. */
  returnedHeaders?: Record<string, string>
}

export interface DsnReport extends ReturnedMessage {
  kind: 'dsn'
  /** Original-Envelope-Id: the ENVID given when sending, if any. */
  originalEnvelopeId?: string
  recipients: DsnRecipient[]
}

export interface ArfReport extends ReturnedMessage {
  kind: 'arf'
  /** Feedback-Type, lower-case: abuse, fraud, virus, other. */
  feedbackType: string
  originalRcptTo?: string
  originalMailFrom?: string
  statisticCode: typeof StatisticCode.markedAsSpam
}

export type BounceReport = DsnReport | ArfReport

const DSN_PARTS = ['message/delivery-status', 'message/global-delivery-status']
const ARF_PARTS = ['message/feedback-report']
const RETURNED_PARTS = ['message/rfc822', 'message/global', 'text/rfc822-headers', 'message/global-headers']
const ACTIONS: readonly string[] = ['failed', 'delayed', 'delivered', 'relayed', 'expanded'] satisfies DsnAction[]
// Feedback types that are not a recipient's complaint: "this is not spam" and DMARC failure reports (RFC 6591).
const NOT_COMPLAINTS = new Set(['not-spam', 'auth-failure'])

/** The DSN or ARF report in a raw message, or undefined when it is neither. */
export async function parseBounceReport(raw: Buffer | string): Promise<BounceReport | undefined> {
  const mail = await simpleParser(raw, {
    // By default mailparser pours message/delivery-status into `text` instead of keeping it as a part.
    keepDeliveryStatus: true,
    // An inline message/rfc822 would otherwise be parsed into the body, and its headers (ours) lost.
    ignoreEmbedded: true,
    // Only the report parts are read: no body conversions, no checksums.
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipImageLinks: true,
    checksumAlgo: false,
  })
  // Looked for wherever they sit, not only right under multipart/report, so a report that a gateway wrapped
  // in multipart/mixed (to add a footer) still counts. One forwarded as an attachment stays inside its
  // message/rfc822 part and does not.
  const part = (types: readonly string[]): Attachment | undefined => mail.attachments.find((a) => types.includes(a.contentType.toLowerCase()))
  const dsn = part(DSN_PARTS)
  const arf = part(ARF_PARTS)
  if (dsn) return withReturned(dsnReport(dsn.content.toString('utf8')), part(RETURNED_PARTS))
  if (arf) return withReturned(arfReport(arf.content.toString('utf8')), part(RETURNED_PARTS))
  return undefined
}

function dsnReport(body: string): DsnReport | undefined {
  const blocks = fieldBlocks(body)
  const recipients = blocks.flatMap((fields) => {
    const recipient = dsnRecipient(fields)
    return recipient ? [recipient] : []
  })
  if (recipients.length === 0) return undefined
  // The per-message block comes first; Original-Envelope-Id belongs there but is looked for in any block.
  const envelopeId = blocks.find((fields) => fields.has('original-envelope-id'))?.get('original-envelope-id')
  return { kind: 'dsn', ...(envelopeId && { originalEnvelopeId: envelopeId }), recipients }
}

function dsnRecipient(fields: Map<string, string>): DsnRecipient | undefined {
  const recipient = addressOf(fields.get('final-recipient') ?? fields.get('original-recipient'))
  if (!recipient) return undefined
  const status = enhancedCodeOf(fields.get('status') ?? '')
  const diagnostic = withoutType(fields.get('diagnostic-code'))
  const action = actionOf(fields.get('action'), status)
  return { recipient, action, ...(status && { status }), ...(diagnostic && { diagnostic }), ...outcome(action, status, diagnostic) }
}

function actionOf(field: string | undefined, status: string | undefined): DsnAction {
  const action = field?.trim().toLowerCase()
  if (action && ACTIONS.includes(action)) return action as DsnAction
  // Without a known Action the status class says what happened.
  return status?.startsWith('2') ? 'delivered' : status?.startsWith('4') ? 'delayed' : 'failed'
}

function outcome(action: DsnAction, status: string | undefined, diagnostic: string | undefined): { statisticCode: number; hard: boolean } {
  if (action === 'delivered') return { statisticCode: StatisticCode.delivered, hard: false }
  // Passed on to a system that reports no further: all we know is that it was sent.
  if (action === 'relayed' || action === 'expanded') return { statisticCode: StatisticCode.sent, hard: false }
  if (action === 'delayed') return { statisticCode: StatisticCode.temporarilyUnavailable, hard: false }
  const answer = classifySmtpAnswer({ enhanced: specificStatus(status, diagnostic), text: diagnostic ?? '' })
  if (!answer.retryable) return { statisticCode: answer.statisticCode, hard: answer.hard }
  // The MTA gave up on a temporary answer (the queue lifetime ran out on 4.4.1): nothing will be sent
  // later, and a temporary answer is no proof against the address.
  const statisticCode = answer.statisticCode === StatisticCode.mailboxFull ? StatisticCode.mailboxFull : StatisticCode.deliveryFailure
  return { statisticCode, hard: false }
}

/** Status, or the diagnostic's own enhanced code where Status is only generic (Exim's 5.0.0 over Gmail's 5.1.1). */
function specificStatus(status: string | undefined, diagnostic: string | undefined): string | undefined {
  const fromDiagnostic = enhancedCodeOf(diagnostic ?? '')
  if (!status) return fromDiagnostic
  if (fromDiagnostic && status.endsWith('.0.0') && fromDiagnostic[0] === status[0]) return fromDiagnostic
  return status
}

function arfReport(body: string): ArfReport | undefined {
  const fields = fieldBlocks(body)[0]
  const feedbackType = fields?.get('feedback-type')?.trim().toLowerCase()
  if (!fields || !feedbackType || NOT_COMPLAINTS.has(feedbackType)) return undefined
  const originalRcptTo = addressOf(fields.get('original-rcpt-to'))
  const originalMailFrom = addressOf(fields.get('original-mail-from'))
  return {
    kind: 'arf',
    feedbackType,
    ...(originalRcptTo && { originalRcptTo }),
    ...(originalMailFrom && { originalMailFrom }),
    statisticCode: StatisticCode.markedAsSpam,
  }
}

function withReturned(report: BounceReport | undefined, returned: Attachment | undefined): BounceReport | undefined {
  if (!report || !returned) return report
  const text = returned.content.toString('utf8').replace(/^\s+/, '')
  // Only the header section: the returned body can be the whole campaign email.
  const end = text.search(/\r?\n[ \t]*\r?\n/)
  const headers = fieldBlocks(end < 0 ? text : text.slice(0, end))[0]
  if (!headers) return report
  const messageId = headers.get('message-id')
  return { ...report, ...(messageId && { returnedMessageId: messageId }), returnedHeaders: Object.fromEntries(headers) }
}

/**
 * Header blocks separated by blank lines (a DSN's per-message and per-recipient groups), each as fields by
 * lower-case name, the first of repeated ones kept, continuation lines unfolded.
 */
function fieldBlocks(text: string): Array<Map<string, string>> {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((block) => {
      const fields = new Map<string, string>()
      for (const line of block.replace(/\n[ \t]+/g, ' ').split('\n')) {
        const colon = line.indexOf(':')
        const name = line.slice(0, colon).trim().toLowerCase()
        if (colon > 0 && !fields.has(name)) fields.set(name, line.slice(colon + 1).trim())
      }
      return fields
    })
    .filter((fields) => fields.size > 0)
}

/** `rfc822; <x@y>` as `x@y`. */
function addressOf(field: string | undefined): string | undefined {
  return withoutType(field)?.replace(/^<(.*)>$/, '$1').trim() || undefined
}

/** A typed field (`smtp; 550 …`, `rfc822; x@y`) without its type; a field without one as it is. */
function withoutType(field: string | undefined): string | undefined {
  // A type is one token: the `;` in Exchange's "550 5.1.1 RESOLVER.ADR.RecipNotFound; not found" is text.
  return field?.replace(/^\s*[\w.+-]+\s*;/, '').trim() || undefined
}
