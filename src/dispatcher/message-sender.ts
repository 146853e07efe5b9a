// Sends campaign messages of one channel (ARCHITECTURE.md "The sending model"): claims the channel's due rows in
// batches with a lease (accounts in turn, within the send rates: fair-claim.ts, send-rate.ts), renders each for its
// recipient, sends the batch, and records every result. What differs between channels (rendering, the connection,
// what an answer means, what it changes beyond the message row) is the channel's driver (email-driver.ts,
// sms-driver.ts); the queue, the lease, the retry rule and the ledger are this one file's, whatever the channel. The
// lease is renewed while a batch is in flight (lease-keeper.ts); a dead worker's rows are claimed again when its
// lease ends, so delivery is at least once, with duplicates limited to the batch in flight.
import { randomUUID } from 'node:crypto'
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import * as campaignsRepo from '../storage/repos/campaigns.js'
import * as messagesRepo from '../storage/repos/messages.js'
import * as messageQueue from '../storage/repos/message-queue.js'
import type { Database } from '../storage/tables.js'
import { finishIfDone } from '../services/sending/campaign-status.js'
import { settleCharge } from '../services/sending/settlement.js'
import { signingKey } from '../tracking/signing-key.js'
import { SendRate } from './send-rate.js'
import { FairClaim } from './fair-claim.js'
import type { Deps } from '../services/types.js'
import { nextAttemptAt } from './jobs.js'
import { Poller } from './poller.js'
import { OutagePacing } from './outage.js'
import { whileLeased } from './lease-keeper.js'

/** What a channel's answer does to its message. */
export interface Outcome {
  recorded: messageQueue.MessageOutcome
}

/** What a send answered: ok, or a failure that may be tried again. */
export type SendAnswer = { ok: true } | { ok: false; retryable: boolean }

/** The part of sending that is the channel's own. */
export interface ChannelDriver<Prepared, Outbound, Result extends SendAnswer, O extends Outcome> {
  readonly channel: campaignsRepo.CampaignChannel
  /** The connection's name for logs: `smtp`, `smpp`, `capture` */
  readonly name: string
  /** The campaign's content made ready to render many messages; an Error ends its messages unsent. */
  prepare(campaign: campaignsRepo.CampaignRow): Prepared | Error
  /** One recipient's message; an Error (their data breaks the template) ends that message, not the batch. */
  render(prepared: Prepared, message: messageQueue.ClaimedMessage, key: Buffer): Outbound | Error
  /** How much of the rate limit a message takes (an SMS: its parts, counted when it was priced). */
  units(message: messageQueue.ClaimedMessage): number
  send(batch: readonly Outbound[]): Promise<Result[]>
  /** A success, or a final failure (a temporary one that outlasted every attempt too): when to retry is this file's rule, the same for every channel. */
  outcomeOf(message: messageQueue.ClaimedMessage, result: Result, now: number): O
  /** A failure to try again at `retryAt` (the outcome's kind is 'retry'; email adds a soft-bounce event). */
  retryOf(message: messageQueue.ClaimedMessage, result: Result, retryAt: number): O
  /** Writes, in the recording transaction, what results change beyond the message rows (events, contacts, parts). */
  afterRecord(tx: Kysely<Database>, held: readonly (O & { message: messageQueue.ClaimedMessage })[], campaigns: ReadonlyMap<number, SendingCampaign<Prepared> | undefined>, now: number): Promise<void>
  /** afterRecord may lock campaign and account rows: the recording then locks the batch's campaigns before any write (see record()). */
  readonly afterRecordLocksCampaigns?: boolean
}

export interface SendingCampaign<Prepared> {
  row: campaignsRepo.CampaignRow
  prepared: Prepared | Error
}

export interface MessageSenderOptions {
  pollMs?: number
  batchSize?: number
  /** Batches in flight at once: while one waits for the connection, the next is claimed and rendered. */
  parallelBatches?: number
  leaseMs?: number
  maxAttempts?: number
  /** Units (messages, SMS parts) a second at most, all workers and accounts together; 0 for no limit. */
  ratePerSecond: number
  /** Units a second at most for each account, all workers together; 0 (the default) for no limit. */
  accountRatePerSecond?: number
}

/** A claim's round for the pollers: how many it claimed, whether more may be due now, or when tokens come back. */
interface Round {
  claimed: number
  more: boolean
  /** Nothing more may go before this many ms have passed (a rate's bucket is empty); 0: see `more`. */
  waitMs: number
}

/** The longest a poller sleeps for a rate's bucket to refill before it asks again (stop() waits for the sleep). */
const MAX_RATE_WAIT_MS = 250

/** A batch sent: the outcomes of messages that ended unsent, and of those sent. */
interface Batch<Prepared, O> {
  campaigns: Map<number, SendingCampaign<Prepared> | undefined>
  ended: messageQueue.MessageOutcome[]
  /** The campaigns of the messages that ended unsent before sending. */
  endedIn: Set<number>
  sent: (O & { message: messageQueue.ClaimedMessage })[]
  /** When the connection's answers came. */
  done: number
}

/**
 * A campaign sends while it is in a sending status; an SMS sent instead of a Viber message also after its
 * campaign was sent (the Viber messages were; their SMS follow as reports and live times end).
 */
function mayStillSend(campaign: campaignsRepo.CampaignRow, message: messageQueue.ClaimedMessage): boolean {
  if (campaignsRepo.SENDING_STATUSES.includes(campaign.status)) return true
  return message.fallbackOf !== null && campaign.status === campaignsRepo.CAMPAIGN_STATUS.sent
}

const isNotSent = (o: messageQueue.MessageOutcome) => o.kind === 'final' && o.status === messagesRepo.MESSAGE_STATUS.notSent

export class MessageSender<Prepared, Outbound, Result extends SendAnswer, O extends Outcome> {
  private readonly log: Logger
  private readonly pollers: Poller[]
  private readonly batchSize: number
  private readonly leaseMs: number
  private readonly maxAttempts: number
  private readonly rate: SendRate
  private readonly claims: FairClaim
  private readonly pollMs: number

  constructor(
    private readonly deps: Deps,
    private readonly driver: ChannelDriver<Prepared, Outbound, Result, O>,
    options: MessageSenderOptions,
  ) {
    this.log = deps.log.child({ component: `${driver.channel} campaigns`, channel: driver.name })
    this.batchSize = options.batchSize ?? 50
    this.leaseMs = options.leaseMs ?? deps.config.sendLeaseSeconds * 1000
    this.maxAttempts = options.maxAttempts ?? 8
    this.rate = new SendRate(deps, driver.channel, options.ratePerSecond)
    this.claims = new FairClaim(deps, driver.channel, new SendRate(deps, driver.channel, options.accountRatePerSecond ?? 0), (message) => driver.units(message))
    this.pollMs = options.pollMs ?? 250
    // A round is "full" (polled again at once) when more may be due, whatever its size: a claim limited by a rate,
    // or by accounts with a few messages each, takes less than a batch while more waits.
    const poll = { pollMs: this.pollMs, full: 1, log: this.log, what: `sending ${driver.channel} messages`, outage: new OutagePacing(this.log) }
    this.pollers = Array.from({ length: options.parallelBatches ?? 2 }, () => new Poller(() => this.pollRound(), poll))
  }

  start(): void {
    for (const poller of this.pollers) poller.start()
  }

  async stop(): Promise<void> {
    await Promise.all(this.pollers.map((poller) => poller.stop()))
  }

  /** Claims one batch of due messages, sends it and records the results; returns how many were claimed. */
  async sendDue(): Promise<number> {
    return (await this.round()).claimed
  }

  /** A poller's round: after a rate's empty bucket, it sleeps until the bucket refills and comes back at once. */
  private async pollRound(): Promise<number> {
    const round = await this.round()
    if (round.waitMs > 0) {
      // Ref'd, as a round in flight is: stop() waits for this round, and an unref'd sleep let the process end under it.
      await sleep(Math.min(round.waitMs, MAX_RATE_WAIT_MS))
      return 1
    }
    return round.more ? 1 : 0
  }

  private async round(): Promise<Round> {
    const now = this.deps.now()
    // The channel's rate first: a claim is never bigger than what it lets go now (a tenth of a second's worth).
    const allowance = Math.min(this.batchSize, await this.rate.allowance())
    if (allowance < 1) return { claimed: 0, more: false, waitMs: Math.max(1, this.rate.waitMs()) }
    const token = randomUUID()
    const { claimed, more, retryInMs } = await this.claims.claim({ now, limit: allowance, leaseUntil: now + this.leaseMs, token })
    this.rate.spend(claimed.reduce((sum, message) => sum + this.driver.units(message), 0))
    if (claimed.length === 0) return { claimed: 0, more, waitMs: more ? 0 : retryInMs }
    const lease: messageQueue.MessageLease = { token, ids: claimed.map((m) => m.id) }
    // On SQLite nothing in a round waits for the network: without these turns of the event loop, requests (an open
    // pixel) waited for whole rounds of both batches in flight, claim, rendering and recording.
    await nextTurn()
    const batch = await whileLeased({ leaseMs: this.leaseMs, renew: () => this.renew(lease), log: this.log }, () => this.send(claimed))
    await nextTurn()
    await this.record(lease, batch)
    return { claimed: claimed.length, more, waitMs: more ? 0 : retryInMs }
  }

  /** Renders the claimed messages and sends them (the rates were taken by the claim); those that cannot be sent end here. */
  private async send(claimed: messageQueue.ClaimedMessage[]): Promise<Batch<Prepared, O>> {
    const key = await signingKey(this.deps)
    const ended: messageQueue.MessageOutcome[] = []
    // The messages and what the channel sends apart: the outbound (an email built as SMTP data, ~10 KB) goes to the
    // channel alone, which lets go of each once its connection took it, not once the whole batch was answered.
    const sending: messageQueue.ClaimedMessage[] = []
    const outbound: Outbound[] = []
    const campaigns = new Map<number, SendingCampaign<Prepared> | undefined>()
    for (const id of new Set(claimed.map((m) => m.campaignId))) campaigns.set(id, await this.campaign(id))
    const endedIn = new Set<number>()
    const notSent = (message: messageQueue.ClaimedMessage, error: string) => {
      ended.push({ id: message.id, kind: 'final', status: messagesRepo.MESSAGE_STATUS.notSent, error })
      endedIn.add(message.campaignId)
    }
    for (const message of claimed) {
      const campaign = campaigns.get(message.campaignId)
      if (!campaign || !mayStillSend(campaign.row, message)) notSent(message, 'the campaign was canceled')
      else if (campaign.prepared instanceof Error) notSent(message, campaign.prepared.message)
      else {
        const rendered = this.render(campaign.prepared, message, key)
        if (rendered instanceof Error) notSent(message, rendered.message)
        else {
          sending.push(message)
          outbound.push(rendered)
        }
      }
    }
    // splice(): this frame keeps no reference to what it hands over.
    const results = sending.length > 0 ? await this.driver.send(outbound.splice(0)) : []
    const done = this.deps.now()
    const sent = sending.map((message, i) => {
      const result = results[i] ?? ({ ok: false, retryable: true, reason: 'no result from the channel' } as unknown as Result)
      return { message, ...this.outcomeOf(message, result, done) }
    })
    return { campaigns, ended, endedIn, sent, done }
  }

  /** The retry rule of every channel: a temporary failure comes back with backoff until the attempts run out. */
  private outcomeOf(message: messageQueue.ClaimedMessage, result: Result, now: number): O {
    if (!result.ok && result.retryable && message.attempts < this.maxAttempts) return this.driver.retryOf(message, result, nextAttemptAt(message.attempts, now))
    return this.driver.outcomeOf(message, result, now)
  }

  /**
   * Records a batch's results in one transaction: the messages this claim still holds, and what the driver
   * writes for those only (a message whose lease another worker took is that worker's to record).
   *
   * The campaign row lock (the end of the campaign is decided under it, in finishIfDone) is taken after the
   * writes, so the batches of one campaign write their rows side by side and queue only for the probe of
   * unfinished messages and the commit: taken first, it made them record one at a time (bench:scale,
   * docs/benchmarks.md). Each batch still takes it before it decides and holds it until its commit, so the last to
   * take it sees every other batch's messages final. A driver whose afterRecord locks campaigns and accounts (a
   * Viber refusal pays for its SMS), or a batch that may settle a charge (which locks the account), takes it
   * first, as every transaction writing both takes campaign rows before the account's.
   */
  private async record(lease: messageQueue.MessageLease, { campaigns, ended, endedIn, sent, done }: Batch<Prepared, O>): Promise<void> {
    const campaignIds = [...campaigns.keys()].sort((a, b) => a - b)
    // The settlement below runs for a campaign no longer sending, or with messages that ended unsent.
    const settlesNothing = (id: number) => campaignsRepo.SENDING_STATUSES.includes(campaigns.get(id)?.row.status ?? -1) && !endedIn.has(id)
    const lockFirst = this.driver.afterRecordLocksCampaigns === true || !campaignIds.every(settlesNothing) || sent.some((s) => isNotSent(s.recorded))
    await this.deps.db.transaction().execute(async (tx) => {
      if (lockFirst) for (const campaignId of campaignIds) await campaignsRepo.lockCampaign(tx, campaignId)
      const recorded = await messageQueue.recordOutcomes(tx, lease, [...ended, ...sent.map((s) => s.recorded)], done)
      const held = sent.filter((s) => recorded.has(s.message.id))
      if (held.length < sent.length) this.log.warn({ lost: sent.length - held.length }, 'results of messages whose lease another worker took were dropped')
      await this.driver.afterRecord(tx, held, campaigns, done)
      const unsent = new Set([...endedIn, ...held.filter((s) => isNotSent(s.recorded)).map((s) => s.message.campaignId)])
      // finishIfDone takes each campaign's lock (in id order, as every recording does) with FOR NO KEY UPDATE, which
      // the key-share locks of other recordings do not block: see there.
      for (const campaignId of campaignIds) {
        const campaign = campaigns.get(campaignId)
        await finishIfDone(tx, campaignId, done)
        // Messages that end unsent are paid back: those of a canceled campaign in flight at the cancel, those
        // the channel refused for good (an SMS the SMSC would not take).
        if (campaign && (!campaignsRepo.SENDING_STATUSES.includes(campaign.row.status) || unsent.has(campaignId))) await settleCharge(tx, campaign.row, done)
      }
    })
  }

  /** Extends the batch's lease; a message another worker took meanwhile (this one stalled) stays theirs. */
  private async renew(lease: messageQueue.MessageLease): Promise<void> {
    const held = await messageQueue.renewLease(this.deps.db, lease, this.deps.now() + this.leaseMs)
    if (held < lease.ids.length) this.log.warn({ lost: lease.ids.length - held }, 'another worker took messages of a batch in flight')
  }

  private render(prepared: Prepared, message: messageQueue.ClaimedMessage, key: Buffer): Outbound | Error {
    try {
      return this.driver.render(prepared, message, key)
    } catch (err) {
      return new Error(`the message could not be rendered: ${(err as Error).message}`)
    }
  }

  /** The campaign of a batch's messages, its content prepared by the driver. */
  private async campaign(id: number): Promise<SendingCampaign<Prepared> | undefined> {
    const row = await campaignsRepo.findCampaignById(this.deps.db, id)
    if (!row) return undefined
    const prepared = this.driver.prepare(row)
    if (prepared instanceof Error) this.log.warn({ campaignId: id, err: prepared }, 'campaign content cannot be rendered')
    return { row, prepared }
  }
}
