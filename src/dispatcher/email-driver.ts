// The email side of the one dispatcher (message-sender.ts): renders each recipient's MIME from the campaign's
// prepared content, sends through the email channel (SMTP or capture), and turns the relay's answers into
// statistic codes and events: delivered, soft bounces (retried) and hard bounces, which also mark the contact.
import type { Kysely } from 'kysely'
import * as campaignsRepo from '../storage/repos/campaigns.js'
import * as messagesRepo from '../storage/repos/messages.js'
import type { ClaimedMessage, MessageOutcome } from '../storage/repos/message-queue.js'
import { CONTACT_STATUS, setStatusOfIds } from '../storage/repos/contacts.js'
import type { Database } from '../storage/tables.js'
import { failureText, type EmailChannel, type OutboundEmail, type SendResult } from '../delivery/channel.js'
import { renderCampaignEmail, type PreparedCampaign } from '../delivery/email/campaign-content.js'
import { classifySmtpAnswer } from '../delivery/email/smtp-answer.js'
import { preparedCampaign } from '../services/email/prepared-campaigns.js'
import { messageEventSource, recordMessageEvents } from '../services/events/events.js'
import { addressingOf } from '../tracking/message-links.js'
import type { Deps } from '../services/types.js'
import { MessageSender, type ChannelDriver, type MessageSenderOptions, type Outcome } from './message-sender.js'

const EVENTS = ['delivered', 'soft_bounces', 'hard_bounces'] as const

/** A send result's change to its message, and the event it makes with that event's own fields. */
type EmailOutcome = Outcome & { event: (typeof EVENTS)[number]; extra?: { status: number; bounce_reason: string } }

const MAX_ERROR_LENGTH = 1000

export function emailDriver(deps: Deps, channel: EmailChannel): ChannelDriver<PreparedCampaign, OutboundEmail, SendResult, EmailOutcome> {
  return {
    channel: 'email',
    name: channel.name,
    prepare: (campaign: campaignsRepo.CampaignRow) => preparedCampaign(campaign),
    render: (prepared, message: ClaimedMessage, key) => renderCampaignEmail(prepared, addressingOf(deps.config, key, message, prepared.listId)),
    units: () => 1,
    send: (batch) => channel.send(batch),
    outcomeOf(message, result) {
      if (result.ok) return { recorded: { id: message.id, kind: 'sent', captured: result.captured === true }, event: 'delivered' }
      const error = failureText(result).slice(0, MAX_ERROR_LENGTH)
      const answer = classifySmtpAnswer({ code: result.code, text: result.reason })
      // Temporary failures that outlasted every attempt end as "unavailable".
      const status = result.retryable ? messagesRepo.MESSAGE_STATUS.unavailable : answer.statisticCode
      const hard = !result.retryable && answer.hard
      const recorded: MessageOutcome = { id: message.id, kind: 'final', status, error }
      return { recorded, event: hard ? 'hard_bounces' : 'soft_bounces', extra: { status, bounce_reason: error } }
    },
    retryOf(message, result, retryAt) {
      const error = result.ok ? '' : failureText(result).slice(0, MAX_ERROR_LENGTH)
      const extra = { status: messagesRepo.MESSAGE_STATUS.retrying, bounce_reason: error }
      return { recorded: { id: message.id, kind: 'retry', error, retryAt }, event: 'soft_bounces', extra }
    },
    async afterRecord(tx: Kysely<Database>, held, campaigns, now) {
      const bounced = held.filter((s) => s.event === 'hard_bounces' && s.message.contactId !== null).map((s) => s.message.contactId!)
      await setStatusOfIds(tx, { ids: bounced, status: CONTACT_STATUS.bounced, onlyFrom: [CONTACT_STATUS.active], now })
      for (const action of EVENTS) {
        // Only messages of known campaigns are sent, so the campaign is there.
        const sources = held.filter((s) => s.event === action).map((s) => messageEventSource(s.message, campaigns.get(s.message.campaignId)!.row, s.extra))
        await recordMessageEvents(tx, action, sources, now)
      }
    },
  }
}

export type EmailSenderOptions = Omit<MessageSenderOptions, 'ratePerSecond' | 'accountRatePerSecond'>

/**
 * The email campaign sender. Two batches of 50 in flight keep a pool of 10 connections busy; more only grows
 * the heap (measured in docs/benchmarks.md: 4 × 100 sent 7% more a second for 120 MiB more RSS).
 */
export function emailSender(deps: Deps, channel: EmailChannel, options: EmailSenderOptions = {}): MessageSender<PreparedCampaign, OutboundEmail, SendResult, EmailOutcome> {
  return new MessageSender(deps, emailDriver(deps, channel), { batchSize: 50, parallelBatches: 2, ...options, ratePerSecond: deps.config.emailRatePerSecond, accountRatePerSecond: deps.config.emailAccountRatePerSecond })
}
