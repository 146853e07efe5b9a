// How much work is due in each of the dispatcher's queues, and since when the oldest of it has been due: what
// `tidings status` and the /metrics gauges show. One statement per queue, each read from the queue's own partial
// index of queued rows (the index its claim uses), so it costs in proportion to the rows that are waiting.
// Rows claimed and in flight still count: they leave the queue when their outcome is recorded.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from '../tables.js'
import type { CampaignChannel } from './campaigns.js'
import { JOB_STATUS } from './jobs.js'
import { OUTBOX_STATUS } from './outbox.js'
import { DELIVERY_STATUS } from './events.js'

export const QUEUES = ['email', 'sms', 'viber', 'jobs', 'webhooks', 'outbox'] as const
export type QueueName = (typeof QUEUES)[number]

export interface QueueDepth {
  /** Items due at `now`. */
  depth: number
  /** When the oldest due item fell due (epoch ms); null when none is due. */
  oldestDueAt: number | null
}

interface Aggregate {
  depth: number | string
  oldest: number | string | null
}

export async function queueDepth(db: Kysely<Database>, queue: QueueName, now: number): Promise<QueueDepth> {
  return toDepth(await aggregateOf(db, queue, now))
}

function aggregateOf(db: Kysely<Database>, queue: QueueName, now: number): Promise<Aggregate> {
  switch (queue) {
    case 'email':
    case 'sms':
    case 'viber':
      return campaignMessages(db, queue, now)
    case 'jobs':
      // Index jobs_due: (run_at) where status = 'queued'.
      return db
        .selectFrom('jobs')
        .select((eb) => [eb.fn.countAll<number>().as('depth'), eb.fn.min('run_at').as('oldest')])
        .where('status', '=', JOB_STATUS.queued)
        .where('run_at', '<=', now)
        .executeTakeFirstOrThrow()
    case 'outbox':
      // Index outbox_due: (next_attempt_at) where status = 'queued'. A new email's next_attempt_at is 0: it has
      // been due since it was queued.
      return db
        .selectFrom('outbox')
        .select((eb) => [eb.fn.countAll<number>().as('depth'), eb.fn.min(laterOf(sql.ref('next_attempt_at'), sql.ref('created_at'))).as('oldest')])
        .where('status', '=', OUTBOX_STATUS.queued)
        .where('next_attempt_at', '<=', now)
        .executeTakeFirstOrThrow()
    case 'webhooks':
      return webhookDeliveries(db, now)
  }
}

/** Index messages_due_by_account: (channel, account_id, next_attempt_at, id) where queued = 1; the channel's range, read without the rows on PostgreSQL. */
function campaignMessages(db: Kysely<Database>, channel: CampaignChannel, now: number): Promise<Aggregate> {
  return db
    .selectFrom('messages')
    .select((eb) => [eb.fn.countAll<number>().as('depth'), eb.fn.min('next_attempt_at').as('oldest')])
    .where('queued', '=', 1)
    .where('channel', '=', channel)
    .where('next_attempt_at', '<=', now)
    .executeTakeFirstOrThrow()
}

/**
 * A delivery is due when its endpoint is (not waiting out a failed request's backoff), since the later of its
 * event and the endpoint's next attempt (0 until a request failed). Index webhook_deliveries_queued: (endpoint_id, id) where status =
 * 'queued', each joined to its endpoint by key.
 */
function webhookDeliveries(db: Kysely<Database>, now: number): Promise<Aggregate> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select((eb) => [
      eb.fn.countAll<number>().as('depth'),
      eb.fn.min(laterOf(sql.ref('e.next_attempt_at'), sql.ref('d.created_at'))).as('oldest'),
    ])
    .where('d.status', '=', DELIVERY_STATUS.queued)
    .where('e.next_attempt_at', '<=', now)
    .executeTakeFirstOrThrow()
}

/** The later of two times: greatest() on PostgreSQL is max() on SQLite, a CASE is the same on both. */
function laterOf(a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<number> {
  return sql<number>`case when ${a} > ${b} then ${a} else ${b} end`
}

function toDepth(row: Aggregate): QueueDepth {
  return { depth: Number(row.depth), oldestDueAt: row.oldest === null ? null : Number(row.oldest) }
}
