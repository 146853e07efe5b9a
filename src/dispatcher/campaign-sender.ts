// Sends campaign messages (ARCHITECTURE.md "The sending model"): claims due rows in batches with a lease,
// renders each for its recipient, sends the batch through the email channel under the rate limit, and
// records every result. Temporary failures come back with backoff; permanent ones end the row with the
// matching statistic code, and a hard bounce marks the contact. The lease is renewed while a batch is in
// flight (lease-keeper.ts); a dead worker's rows are claimed again when its lease ends, so delivery is at
// least once, with duplicates limited to the batch in flight.
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import * as campaignsRepo from '../storage/repos/campaigns.js'
import * as messagesRepo from '../storage/repos/messages.js'
import * as messageQueue from '../storage/repos/message-queue.js'
import { CONTACT_STATUS, setStatusOfIds } from '../storage/repos/contacts.js'
import { failureText, type EmailChannel, type OutboundEmail, type SendResult } from '../delivery/channel.js'
import { renderMessage, type PreparedCampaign } from '../delivery/email/campaign-content.js'
import { preparedCampaign } from '../services/email/prepared-campaigns.js'
import { classifySmtpAnswer } from '../delivery/email/smtp-answer.js'
import { finishIfDone, settleCharge } from '../services/email/campaign-lifecycle.js'
import { messageEventSource, recordMessageEvents } from '../services/events/events.js'
import { addressingOf } from '../tracking/message-links.js'
import { signingKey } from '../tracking/signing-key.js'
import { RateLimiter } from '../lib/rate-limiter.js'
import type { Deps } from '../services/types.js'
import { nextAttemptAt } from './jobs.js'
import { Poller } from './poller.js'
import { OutagePacing } from './outage.js'
import { whileLeased } from './lease-keeper.js'

export interface CampaignSenderOptions {
  pollMs?: number
  batchSize?: number
  /** Batches in flight at once: while one waits for the relay, the next is claimed and rendered. */
  parallelBatches?: number
  leaseMs?: number
  maxAttempts?: number
}

interface SendingCampaign {
  row: campaignsRepo.CampaignRow
  prepared: PreparedCampaign | Error
}

const EVENTS = ['delivered', 'soft_bounces', 'hard_bounces'] as const

/** A send result's change to its message, and the event it makes with that event's own fields. */
type Outcome = { recorded: messageQueue.MessageOutcome; event: (typeof EVENTS)[number]; extra?: { status: number; bounce_reason: string } }

/** A batch sent: the outcomes of messages that ended unsent, and of those sent, with the events they make. */
interface Batch {
  campaigns: Map<number, SendingCampaign | undefined>
  ended: messageQueue.MessageOutcome[]
  sent: (Outcome & { message: messageQueue.ClaimedMessage })[]
  /** When the relay's answers came. */
  done: number
}

const MAX_ERROR_LENGTH = 1000

export class CampaignSender {
  private readonly log: Logger
  private readonly pollers: Poller[]
  private readonly batchSize: number
  private readonly leaseMs: number
  private readonly maxAttempts: number
  private readonly limiter: RateLimiter

  constructor(
    private readonly deps: Deps,
    private readonly channel: EmailChannel,
    options: CampaignSenderOptions = {},
  ) {
    this.log = deps.log.child({ component: 'campaigns', channel: channel.name })
    this.batchSize = options.batchSize ?? 50
    this.leaseMs = options.leaseMs ?? deps.config.sendLeaseSeconds * 1000
    this.maxAttempts = options.maxAttempts ?? 8
    this.limiter = new RateLimiter(deps.config.emailRatePerSecond)
    const poll = { pollMs: options.pollMs ?? 250, full: this.batchSize, log: this.log, what: 'sending campaign messages', outage: new OutagePacing(this.log) }
    // Two batches of 50 keep a pool of 10 connections busy; more in flight only grows the heap (measured in
    // docs/benchmarks.md: 4 × 100 sent 7% more a second for 120 MiB more RSS).
    this.pollers = Array.from({ length: options.parallelBatches ?? 2 }, () => new Poller(() => this.sendDue(), poll))
  }

  start(): void {
    for (const poller of this.pollers) poller.start()
  }

  async stop(): Promise<void> {
    await Promise.all(this.pollers.map((poller) => poller.stop()))
  }

  /** Claims one batch of due messages, sends it and records the results; returns how many were claimed. */
  async sendDue(): Promise<number> {
    const now = this.deps.now()
    const token = randomUUID()
    const claimed = await messageQueue.claimDue(this.deps.db, { now, limit: this.batchSize, leaseUntil: now + this.leaseMs, token })
    if (claimed.length === 0) return 0
    const lease: messageQueue.MessageLease = { token, ids: claimed.map((m) => m.id) }
    const batch = await whileLeased({ leaseMs: this.leaseMs, renew: () => this.renew(lease), log: this.log }, () => this.send(claimed))
    await this.record(lease, batch)
    return claimed.length
  }

  /** Renders the claimed messages and sends them under the rate limit; those that cannot be sent end here. */
  private async send(claimed: messageQueue.ClaimedMessage[]): Promise<Batch> {
    const key = await signingKey(this.deps)
    const ended: messageQueue.MessageOutcome[] = []
    const sending: { message: messageQueue.ClaimedMessage; email: OutboundEmail }[] = []
    const campaigns = new Map<number, SendingCampaign | undefined>()
    for (const id of new Set(claimed.map((m) => m.campaignId))) campaigns.set(id, await this.campaign(id))
    for (const message of claimed) {
      const campaign = campaigns.get(message.campaignId)
      if (!campaign || !campaignsRepo.SENDING_STATUSES.includes(campaign.row.status)) {
        ended.push({ id: message.id, kind: 'final', status: messagesRepo.MESSAGE_STATUS.notSent, error: 'the campaign was canceled' })
      } else if (campaign.prepared instanceof Error) {
        ended.push({ id: message.id, kind: 'final', status: messagesRepo.MESSAGE_STATUS.notSent, error: campaign.prepared.message })
      } else {
        const email = this.render(campaign.prepared, message, key)
        if (email instanceof Error) ended.push({ id: message.id, kind: 'final', status: messagesRepo.MESSAGE_STATUS.notSent, error: email.message })
        else sending.push({ message, email })
      }
    }
    await this.limiter.take(sending.length)
    const results = sending.length > 0 ? await this.channel.send(sending.map((s) => s.email)) : []
    const done = this.deps.now()
    const sent = sending.map(({ message }, i) => ({ message, ...this.outcomeOf(message, results[i] ?? { ok: false, retryable: true, reason: 'no result from the channel' }, done) }))
    return { campaigns, ended, sent, done }
  }

  /**
   * Records a batch's results in one transaction: the messages this claim still holds, and the events and
   * bounced contacts of those only (a message whose lease another worker took is that worker's to record).
   */
  private async record(lease: messageQueue.MessageLease, { campaigns, ended, sent, done }: Batch): Promise<void> {
    await this.deps.db.transaction().execute(async (tx) => {
      const recorded = await messageQueue.recordOutcomes(tx, lease, [...ended, ...sent.map((s) => s.recorded)], done)
      const held = sent.filter((s) => recorded.has(s.message.id))
      if (held.length < sent.length) this.log.warn({ lost: sent.length - held.length }, 'results of messages whose lease another worker took were dropped')
      const bounced = held.filter((s) => s.event === 'hard_bounces' && s.message.contactId !== null).map((s) => s.message.contactId!)
      await setStatusOfIds(tx, { ids: bounced, status: CONTACT_STATUS.bounced, onlyFrom: [CONTACT_STATUS.active], now: done })
      for (const action of EVENTS) {
        // Only messages of known campaigns are sent, so the campaign is there.
        const sources = held.filter((s) => s.event === action).map((s) => messageEventSource(s.message, campaigns.get(s.message.campaignId)!.row, s.extra))
        await recordMessageEvents(tx, action, sources, done)
      }
      for (const [campaignId, campaign] of campaigns) {
        await finishIfDone(tx, campaignId, done)
        // Messages of a canceled campaign that were in flight at the cancel end here: pay them back too.
        if (campaign && !campaignsRepo.SENDING_STATUSES.includes(campaign.row.status)) await settleCharge(tx, campaign.row, done)
      }
    })
  }

  /** Extends the batch's lease; a message another worker took meanwhile (this one stalled) stays theirs. */
  private async renew(lease: messageQueue.MessageLease): Promise<void> {
    const held = await messageQueue.renewLease(this.deps.db, lease, this.deps.now() + this.leaseMs)
    if (held < lease.ids.length) this.log.warn({ lost: lease.ids.length - held }, 'another worker took messages of a batch in flight')
  }

  /** One recipient's email; an Error when their data breaks the template (it ends that message, not the batch). */
  private render(prepared: PreparedCampaign, message: messageQueue.ClaimedMessage, key: Buffer): OutboundEmail | Error {
    try {
      return renderMessage(prepared, addressingOf(this.deps.config, key, message, prepared.listId))
    } catch (err) {
      return new Error(`the message could not be rendered: ${(err as Error).message}`)
    }
  }

  /** What a send result does to the message, and the event it makes (a bounce: hard when the address is bad). */
  private outcomeOf(message: messageQueue.ClaimedMessage, result: SendResult, now: number): Outcome {
    if (result.ok) return { recorded: { id: message.id, kind: 'sent', captured: result.captured === true }, event: 'delivered' }
    const error = failureText(result).slice(0, MAX_ERROR_LENGTH)
    const answer = classifySmtpAnswer({ code: result.code, text: result.reason })
    if (result.retryable && message.attempts < this.maxAttempts) {
      const extra = { status: messagesRepo.MESSAGE_STATUS.retrying, bounce_reason: error }
      return { recorded: { id: message.id, kind: 'retry', error, retryAt: nextAttemptAt(message.attempts, now) }, event: 'soft_bounces', extra }
    }
    // Temporary failures that outlasted every attempt end as "unavailable".
    const status = result.retryable ? messagesRepo.MESSAGE_STATUS.unavailable : answer.statisticCode
    const hard = !result.retryable && answer.hard
    return { recorded: { id: message.id, kind: 'final', status, error }, event: hard ? 'hard_bounces' : 'soft_bounces', extra: { status, bounce_reason: error } }
  }

  /** The campaign of a batch's messages, its content prepared once per change of its row. */
  private async campaign(id: number): Promise<SendingCampaign | undefined> {
    const row = await campaignsRepo.findCampaignById(this.deps.db, id)
    if (!row) return undefined
    const prepared = preparedCampaign(row)
    if (prepared instanceof Error) this.log.warn({ campaignId: id, err: prepared }, 'campaign content cannot be rendered')
    return { row, prepared }
  }
}
