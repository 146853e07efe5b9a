// Delivers queued events to webhook URLs (issue 10, docs/webhooks.md): per endpoint, the oldest events first,
// up to 100 in one form-urlencoded POST signed with the account's secret. An endpoint is leased while a
// request to it runs, so one URL never gets two at once and its events arrive in order; endpoints are served
// side by side, so a slow receiver holds up only itself. A failed request is retried with backoff; an event
// still undelivered after `webhookRetryHours` is marked failed and the next ones go on.
import type { Logger } from 'pino'
import * as queue from '../storage/repos/webhook-queue.js'
import { CLEAN_UPS, runCleanUp } from '../storage/repos/advisory-locks.js'
import { logAttempt } from '../storage/repos/webhook-attempts.js'
import { formBody } from '../delivery/webhooks/form-body.js'
import { signatureHeaders } from '../delivery/webhooks/signature.js'
import { postWebhook } from '../delivery/webhooks/http-post.js'
import { webhookSecret } from '../services/events/webhooks.js'
import type { Deps } from '../services/types.js'
import { nextAttemptAt } from './jobs.js'
import { OutagePacing } from './outage.js'
import { isDatabaseUnavailable } from '../storage/db.js'

export interface WebhookSenderOptions {
  pollMs?: number
  /** Endpoints served at once. */
  concurrency?: number
  leaseMs?: number
}

/** SendPulse sends up to 100 events a request. */
const BATCH = 100
/** PHP reads at most 1000 form fields a request (max_input_vars), qs and express's parser as many. */
const MAX_FIELDS = 1000
const HOUR = 3_600_000

export class WebhookSender {
  private readonly log: Logger
  private readonly concurrency: number
  private readonly pollMs: number
  private readonly leaseMs: number
  private readonly inFlight = new Map<number, Promise<void>>()
  private readonly outage: OutagePacing
  private timer: NodeJS.Timeout | undefined
  private running = false
  private lastPrune = 0

  constructor(
    private readonly deps: Deps,
    options: WebhookSenderOptions = {},
  ) {
    this.log = deps.log.child({ component: 'webhooks' })
    this.outage = new OutagePacing(this.log)
    this.concurrency = options.concurrency ?? 16
    this.pollMs = options.pollMs ?? 250
    // A request ends by its timeout; the lease outlives it by the time to record the outcome.
    this.leaseMs = options.leaseMs ?? (deps.config.webhookTimeoutSeconds + 5) * 1000
  }

  start(): void {
    this.running = true
    this.schedule(0)
  }

  async stop(): Promise<void> {
    this.running = false
    clearTimeout(this.timer)
    await Promise.all(this.inFlight.values())
  }

  /** Claims free endpoints up to the concurrency and starts a delivery to each; returns how many started. */
  async poll(): Promise<number> {
    await this.pruneHourly()
    const claimed = await queue.claimEndpoints(this.deps.db, {
      now: this.deps.now(),
      limit: this.concurrency - this.inFlight.size,
      leaseMs: this.leaseMs,
      except: [...this.inFlight.keys()],
    })
    for (const endpoint of claimed) {
      const delivery = this.deliver(endpoint)
        .catch((err: unknown) => {
          // An outage is reported once, by the next poll (its lease brings the endpoint back afterwards).
          if (!isDatabaseUnavailable(err)) this.log.error({ err, endpointId: endpoint.id }, 'webhook delivery failed')
        })
        .finally(() => {
          this.inFlight.delete(endpoint.id)
          if (this.running) this.schedule(0)
        })
      this.inFlight.set(endpoint.id, delivery)
    }
    return claimed.length
  }

  /** Delivers until nothing is due (for tests and `drain`): every claimed endpoint's batch is awaited. */
  async deliverDue(): Promise<number> {
    let delivered = 0
    for (;;) {
      const started = await this.poll()
      await Promise.all(this.inFlight.values())
      if (started === 0) return delivered
      delivered += started
    }
  }

  /**
   * Ended deliveries and their events are kept `webhookKeepDays`, then forgotten; checked once an hour by each
   * process, and run once an hour by one of them (repos/advisory-locks.ts).
   */
  async pruneHourly(): Promise<void> {
    const now = this.deps.now()
    if (now - this.lastPrune < HOUR) return
    this.lastPrune = now
    const before = now - this.deps.config.webhookKeepDays * 24 * HOUR
    const pruned = await runCleanUp(this.deps.db, CLEAN_UPS.webhookDeliveries, { now, periodMs: HOUR }, (tx) => queue.pruneFinished(tx, before))
    if (pruned) this.log.info(pruned, 'old webhook deliveries forgotten')
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.poll().then(
        (started) => {
          this.outage.succeeded()
          if (this.running) this.schedule(started > 0 ? 0 : this.pollMs)
        },
        (err: unknown) => {
          const pause = this.outage.pauseAfter(err)
          if (pause === undefined) this.log.error({ err }, 'claiming webhook endpoints failed')
          if (this.running) this.schedule(pause ?? this.pollMs)
        },
      )
    }, delayMs)
    this.timer.unref()
  }

  private async deliver(endpoint: queue.ClaimedEndpoint): Promise<void> {
    const now = this.deps.now()
    const events = await queue.nextBatch(this.deps.db, endpoint.id, BATCH)
    const expiry = now - this.deps.config.webhookRetryHours * HOUR
    const expired = events.filter((e) => e.createdAt < expiry)
    if (expired.length > 0) {
      await queue.finishBatch(this.deps.db, { endpoint, deliveryIds: expired.map((e) => e.deliveryId), status: 'failed', error: 'not delivered in time', now })
      return
    }
    if (events.length === 0) return void (await queue.finishBatch(this.deps.db, { endpoint, deliveryIds: [], status: 'delivered', now }))
    const sent = withinFieldLimit(events.map((e) => ({ id: e.eventId, user_id: endpoint.accountId, ...(JSON.parse(e.payload) as Record<string, unknown>) })))
    events.length = sent.length
    const body = formBody(sent)
    const messageId = `msg_${endpoint.id}_${events[0]!.deliveryId}_${events.length}`
    const headers = { 'content-type': 'application/x-www-form-urlencoded', ...signatureHeaders(await webhookSecret(this.deps, endpoint.accountId), messageId, Math.floor(now / 1000), body) }
    const result = await postWebhook(endpoint.url, body, headers, { timeoutMs: this.deps.config.webhookTimeoutSeconds * 1000, allowPrivate: this.deps.config.webhookAllowPrivate })
    const done = this.deps.now()
    await logAttempt(this.deps.db, endpoint.id, {
      startedAt: now,
      events: events.length,
      statusCode: result.status ?? null,
      latencyMs: Math.round(result.latencyMs),
      error: result.ok ? null : result.error,
    })
    const deliveryIds = events.map((e) => e.deliveryId)
    if (result.ok) await queue.finishBatch(this.deps.db, { endpoint, deliveryIds, status: 'delivered', now: done })
    else if (!result.retryable) await queue.finishBatch(this.deps.db, { endpoint, deliveryIds, status: 'failed', error: result.error, now: done })
    else await queue.deferEndpoint(this.deps.db, endpoint, nextAttemptAt(endpoint.failures + 1, done), done)
  }
}

/** The leading events whose fields fit in one request a PHP receiver reads whole (always at least one). */
function withinFieldLimit(events: Record<string, unknown>[]): Record<string, unknown>[] {
  let fields = 0
  const fit = events.findIndex((event) => (fields += fieldCount(event)) > MAX_FIELDS)
  return fit < 0 ? events : events.slice(0, Math.max(fit, 1))
}

function fieldCount(value: unknown): number {
  if (value === null || typeof value !== 'object') return 1
  return Object.values(value).reduce<number>((sum, v) => sum + fieldCount(v), 0)
}
