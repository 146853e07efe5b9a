// Bounces and complaints that come back after sending (DSN, RFC 3464; ARF, RFC 5965) change the message
// they are about and its contact: a hard bounce marks the contact with a sending error (9), a complaint
// unsubscribes it from everything (6). Reports are matched to a message only through its signed VERP address,
// so nobody can mark another's contacts by mailing a made-up report.
import type { BounceReport } from '../delivery/email/bounce-report.js'
import * as messagesRepo from '../storage/repos/messages.js'
import { CONTACT_STATUS, setStatusOfIds } from '../storage/repos/contacts.js'
import { messageIdOfVerp } from './message-links.js'
import { verifyingKeys } from './signing-key.js'
import { findCampaignById } from '../storage/repos/campaigns.js'
import { messageEventSource, recordMessageEvents } from './events.js'
import { finishIfDone } from './campaign-lifecycle.js'
import type { WebhookAction } from './webhooks.js'
import type { Deps } from './types.js'

/** The message a VERP address stands for, when it is one of ours. */
export async function messageOfAddress(deps: Deps, address: string): Promise<number | undefined> {
  return messageIdOfVerp(await verifyingKeys(deps), address)
}

/** Where a report names our VERP address: the envelope recipient, or the complained-about message's sender. */
export async function messageOfReport(deps: Deps, report: BounceReport, envelopeTo: readonly string[]): Promise<number | undefined> {
  const keys = await verifyingKeys(deps)
  const candidates = [...envelopeTo, report.kind === 'arf' ? report.originalMailFrom : undefined, report.returnedHeaders?.['return-path']]
  for (const candidate of candidates) {
    const address = candidate?.replace(/^\s*<|>\s*$/g, '')
    const id = address ? messageIdOfVerp(keys, address) : undefined
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
