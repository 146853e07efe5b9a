// Sends the outbox's service emails (double opt-in confirmations, sender activation codes) through the email
// channel: claims due rows with a lease, sends them, records each result. Temporary failures are retried with
// backoff; permanent ones end the row as failed with the relay's answer. Capture keeps them, marked captured.
import type { Logger } from 'pino'
import * as outboxRepo from '../storage/repos/outbox.js'
import { failureText, type EmailChannel, type SendResult } from '../delivery/channel.js'
import type { Deps } from '../services/types.js'
import { nextAttemptAt } from './jobs.js'
import { Poller } from './poller.js'
import { whileLeased } from './lease-keeper.js'

export interface OutboxSenderOptions {
  pollMs?: number
  batchSize?: number
  leaseMs?: number
  maxAttempts?: number
}

export class OutboxSender {
  private readonly log: Logger
  private readonly poller: Poller
  private readonly batchSize: number
  private readonly leaseMs: number
  private readonly maxAttempts: number

  constructor(
    private readonly deps: Deps,
    private readonly channel: EmailChannel,
    options: OutboxSenderOptions = {},
  ) {
    this.log = deps.log.child({ component: 'outbox', channel: channel.name })
    this.batchSize = options.batchSize ?? 50
    this.leaseMs = options.leaseMs ?? 5 * 60_000
    this.maxAttempts = options.maxAttempts ?? 8
    this.poller = new Poller(() => this.sendDue(), { pollMs: options.pollMs ?? 500, full: this.batchSize, log: this.log, what: 'sending the outbox' })
  }

  start(): void {
    this.poller.start()
  }

  stop(): Promise<void> {
    return this.poller.stop()
  }

  /** Claims the due emails, sends them and records the results; returns how many were tried. */
  async sendDue(): Promise<number> {
    const claimed = await outboxRepo.claimDueEmails(this.deps.db, { now: this.deps.now(), limit: this.batchSize, leaseMs: this.leaseMs })
    if (claimed.length === 0) return 0
    // The relay may take longer than the lease (lease-keeper.ts): renewed, it keeps a second sender from sending again.
    const renew = () => outboxRepo.renewEmailLeases(this.deps.db, claimed, this.deps.now() + this.leaseMs)
    const results = await whileLeased({ leaseMs: this.leaseMs, renew, log: this.log }, () =>
      this.channel.send(claimed.map((e) => ({ from: e.from, to: e.to, subject: e.subject, html: e.html, text: e.text }))),
    )
    const now = this.deps.now()
    for (const [i, email] of claimed.entries()) {
      const outcome = this.outcomeOf(results[i] ?? { ok: false, retryable: true, reason: 'no result from the channel' }, email.attempts, now)
      await outboxRepo.recordDelivery(this.deps.db, { id: email.id, attempts: email.attempts, now }, outcome)
      if (outcome.status === 'failed') this.log.warn({ outboxId: email.id, kind: email.kind, error: outcome.error }, 'service email failed for good')
    }
    return claimed.length
  }

  private outcomeOf(result: SendResult, attempts: number, now: number): outboxRepo.DeliveryOutcome {
    if (result.ok) return { status: result.captured ? 'captured' : 'sent', providerId: result.providerId }
    const error = failureText(result)
    if (!result.retryable || attempts >= this.maxAttempts) return { status: 'failed', error }
    return { status: 'queued', error, retryAt: nextAttemptAt(attempts, now) }
  }
}
