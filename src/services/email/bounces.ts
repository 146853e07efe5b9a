// Mail that comes back to the bounce domain after sending. Bounces and complaints (DSN, RFC 3464; ARF, RFC
// 5965) change the message they are about and its contact: a hard bounce marks the contact with a sending
// error (9), a complaint unsubscribes it from everything (6). Mail to a message's List-Unsubscribe mailto:
// unsubscribes its recipient as the one-click POST does. Messages are found only through signed addresses, so
// nobody can mark or unsubscribe another's contacts by mailing a made-up report.
import type { BounceReport } from '../../delivery/email/bounce-report.js'
import * as messagesRepo from '../../storage/repos/messages.js'
import { CONTACT_STATUS, setStatusOfIds } from '../../storage/repos/contacts.js'
import { messageIdOfUnsubscribeAddress, messageIdOfVerp } from '../../tracking/message-links.js'
import { unsubscribeMessage } from '../../tracking/readers.js'
import { verifyingKeys } from '../../tracking/signing-key.js'
import { findCampaignById } from '../../storage/repos/campaigns.js'
import { messageEventSource, recordMessageEvents } from '../events/events.js'
import { finishIfDone } from '../sending/campaign-status.js'
import type { WebhookAction } from '../events/webhooks.js'
import type { Deps } from '../types.js'

/** Where mail servers and feedback loops send questions and complaints (RFC 2142, and the usual fbl@): only at our bounce domain. */
const FEEDBACK_LOCAL_PARTS = ['postmaster', 'abuse', 'fbl']

/** Whether the bounce listener takes mail for an address: a feedback address, a VERP or unsubscribe address. */
export async function isOurAddress(deps: Deps, address: string): Promise<boolean> {
  const at = address.lastIndexOf('@')
  const [local, domain] = [address.slice(0, at).toLowerCase(), address.slice(at + 1).toLowerCase()]
  if (at > 0 && domain === deps.config.bounceDomain.toLowerCase() && FEEDBACK_LOCAL_PARTS.includes(local)) return true
  const keys = await verifyingKeys(deps)
  const { bounceDomain } = deps.config
  return messageIdOfVerp(keys, address, bounceDomain) !== undefined || messageIdOfUnsubscribeAddress(keys, address, bounceDomain) !== undefined
}

export type MailOutcome = { unsubscribed: number[]; report?: { kind: BounceReport['kind']; messageId?: number; outcome: ReportOutcome } }

/** Handles one accepted message: unsubscribes for each unsubscribe address it came to, records its report. */
export async function receiveMail(deps: Deps, report: BounceReport | undefined, envelopeTo: readonly string[]): Promise<MailOutcome> {
  const keys = await verifyingKeys(deps)
  const unsubscribed: number[] = []
  for (const address of envelopeTo) {
    const messageId = messageIdOfUnsubscribeAddress(keys, address, deps.config.bounceDomain)
    const answer = messageId === undefined ? undefined : await unsubscribeMessage(deps, messageId)
    // An expired address (TIDINGS_LINK_TTL_DAYS after sending) changes nothing, as the expired one-click link.
    if (answer && answer !== 'expired') unsubscribed.push(messageId!)
  }
  if (!report) return { unsubscribed }
  const messageId = await messageOfReport(deps, report, envelopeTo)
  const outcome = messageId === undefined ? 'unknown' : await recordReport(deps, messageId, report)
  return { unsubscribed, report: { kind: report.kind, messageId, outcome } }
}

/**
 * Where a report names our VERP address: the envelope recipient, or the complained-about message's sender (ARF
 * Original-Mail-From, a returned Return-Path). Those were written with our bounce domain, so only that counts.
 */
export async function messageOfReport(deps: Deps, report: BounceReport, envelopeTo: readonly string[]): Promise<number | undefined> {
  const keys = await verifyingKeys(deps)
  const candidates = [...envelopeTo, report.kind === 'arf' ? report.originalMailFrom : undefined, report.returnedHeaders?.['return-path']]
  for (const candidate of candidates) {
    const address = candidate?.replace(/^\s*<|>\s*$/g, '')
    const id = address ? messageIdOfVerp(keys, address, deps.config.bounceDomain) : undefined
    if (id !== undefined) return id
  }
  return undefined
}

export type ReportOutcome = 'recorded' | 'ignored' | 'unknown'

/** Applies a report to its message and contact; 'unknown' when no message of ours matches it. */
export async function recordReport(deps: Deps, messageId: number, report: BounceReport): Promise<ReportOutcome> {
  const message = await messagesRepo.findMessage(deps.db, messageId)
  const campaign = message && (await findCampaignById(deps.db, message.campaignId))
  if (!message || !campaign) return 'unknown'
  const change = changeOf(report)
  if (!change) return 'ignored'
  const now = deps.now()
  await deps.db.transaction().execute(async (tx) => {
    if (await messagesRepo.markReported(tx, message.id, { status: change.statisticCode, error: change.reason, now })) {
      const extra = report.kind === 'arf' ? { status: change.statisticCode } : { status: change.statisticCode, bounce_reason: change.reason }
      await recordMessageEvents(tx, change.event, [messageEventSource(message, campaign, extra)], now)
    }
    // A report may end a message that was waiting for a retry, and with it the campaign.
    await finishIfDone(tx, message.campaignId, now)
    if (change.contactStatus !== undefined && message.contactId !== null) {
      await setStatusOfIds(tx, { ids: [message.contactId], status: change.contactStatus, onlyFrom: [CONTACT_STATUS.active, CONTACT_STATUS.new], now })
    }
  })
  return 'recorded'
}

function changeOf(report: BounceReport): { statisticCode: number; reason: string; contactStatus?: number; event: WebhookAction } | undefined {
  if (report.kind === 'arf') return { statisticCode: report.statisticCode, reason: `complaint (${report.feedbackType})`, contactStatus: CONTACT_STATUS.complained, event: 'spam' }
  // A relay's 250 already counted the message as delivered; only a failure changes it now.
  const failed = report.recipients.find((r) => r.action === 'failed')
  if (!failed) return undefined
  return {
    statisticCode: failed.statisticCode,
    reason: [failed.status, failed.diagnostic].filter(Boolean).join(' ') || 'delivery failed',
    contactStatus: failed.hard ? CONTACT_STATUS.bounced : undefined,
    event: failed.hard ? 'hard_bounces' : 'soft_bounces',
  }
}
