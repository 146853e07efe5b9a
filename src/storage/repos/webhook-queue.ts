// The webhook dispatcher's queue: endpoints with queued deliveries are claimed with a lease (one holder per
// URL, so its deliveries are never concurrent and stay in order), their oldest deliveries sent as a batch.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'
import { leaseFree, skippingLocked } from './leases.js'
import { DELIVERY_STATUS } from './events.js'

export interface ClaimedEndpoint {
  id: number
  accountId: number
  url: string
  failures: number
  leaseUntil: number
}

export async function claimEndpoints(db: Kysely<Database>, claim: { now: number; limit: number; leaseMs: number; except: readonly number[] }): Promise<ClaimedEndpoint[]> {
  if (claim.limit <= 0) return []
  let due = db
    .selectFrom('webhook_endpoints as e')
    .select('e.id')
    .where('e.next_attempt_at', '<=', claim.now)
    .where(leaseFree(claim.now))
    .where((eb) => eb.exists(eb.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.endpoint_id', '=', 'e.id').where('d.status', '=', DELIVERY_STATUS.queued)))
    .orderBy('e.next_attempt_at')
    .limit(claim.limit)
  if (claim.except.length > 0) due = due.where('e.id', 'not in', [...claim.except])
  const leaseUntil = claim.now + claim.leaseMs
  const rows = await db.updateTable('webhook_endpoints').set({ locked_until: leaseUntil }).where('id', 'in', skippingLocked(due, db)).returning(['id', 'account_id', 'url', 'failures']).execute()
  return rows.map((r) => ({ id: Number(r.id), accountId: Number(r.account_id), url: r.url, failures: r.failures, leaseUntil }))
}

export interface QueuedEvent {
  deliveryId: number
  eventId: number
  payload: string
  createdAt: number
}

/** The oldest queued deliveries of an endpoint, in event order. */
export async function nextBatch(db: Kysely<Database>, endpointId: number, limit: number): Promise<QueuedEvent[]> {
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.id as delivery_id', 'e.id as event_id', 'e.payload', 'e.created_at'])
    .where('d.endpoint_id', '=', endpointId)
    .where('d.status', '=', DELIVERY_STATUS.queued)
    .orderBy('d.id')
    .limit(limit)
    .execute()
  return rows.map((r) => ({ deliveryId: Number(r.delivery_id), eventId: Number(r.event_id), payload: r.payload, createdAt: Number(r.created_at) }))
}

/** Ends deliveries (delivered, or failed for good) and releases the endpoint; only the lease holder may. */
export async function finishBatch(
  db: Kysely<Database>,
  batch: { endpoint: ClaimedEndpoint; deliveryIds: number[]; status: 'delivered' | 'failed'; error?: string; now: number },
): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const released = await tx
      .updateTable('webhook_endpoints')
      .set({ locked_until: null, failures: batch.status === 'delivered' ? 0 : batch.endpoint.failures, next_attempt_at: 0, updated_at: batch.now })
      .where('id', '=', batch.endpoint.id)
      .where('locked_until', '=', batch.endpoint.leaseUntil)
      .executeTakeFirst()
    if (Number(released.numUpdatedRows) === 0) return false
    for (let i = 0; i < batch.deliveryIds.length; i += 500) {
      await tx
        .updateTable('webhook_deliveries')
        .set({ status: batch.status, finished_at: batch.now, last_error: batch.error ?? null })
        .where('id', 'in', batch.deliveryIds.slice(i, i + 500))
        .where('status', '=', DELIVERY_STATUS.queued)
        .execute()
    }
    return true
  })
}

/** A failed request: the endpoint waits until `retryAt` with its queue intact. */
export async function deferEndpoint(db: Kysely<Database>, endpoint: ClaimedEndpoint, retryAt: number, now: number): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ locked_until: null, failures: endpoint.failures + 1, next_attempt_at: retryAt, updated_at: now })
    .where('id', '=', endpoint.id)
    .where('locked_until', '=', endpoint.leaseUntil)
    .execute()
}

export interface FailedEvent {
  eventId: number
  action: string
  createdAt: number
  failedAt: number | null
  error: string | null
}

/** Events that were given up on for an endpoint, newest first. */
export async function failedEvents(db: Kysely<Database>, endpointId: number, limit: number): Promise<FailedEvent[]> {
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select(['e.id', 'e.action', 'e.created_at', 'd.finished_at', 'd.last_error'])
    .where('d.endpoint_id', '=', endpointId)
    .where('d.status', '=', DELIVERY_STATUS.failed)
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute()
  return rows.map((r) => ({ eventId: Number(r.id), action: r.action, createdAt: Number(r.created_at), failedAt: r.finished_at === null ? null : Number(r.finished_at), error: r.last_error }))
}

/** Forgets deliveries that ended before `before`, and then events nothing is left to deliver. */
export async function pruneFinished(db: Kysely<Database>, before: number): Promise<{ deliveries: number; events: number }> {
  const deliveries = await db.deleteFrom('webhook_deliveries').where('status', '<>', DELIVERY_STATUS.queued).where('finished_at', '<', before).executeTakeFirst()
  const events = await db
    .deleteFrom('events')
    .where('created_at', '<', before)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'events.id'))))
    .executeTakeFirst()
  return { deliveries: Number(deliveries.numDeletedRows), events: Number(events.numDeletedRows) }
}

/** The endpoint's next request may be made at once, its backoff cut short (a test event asked for); its lease stands. */
export async function dueAt(db: Kysely<Database>, endpointId: number, now: number): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ next_attempt_at: now }).where('id', '=', endpointId).where('next_attempt_at', '>', now).execute()
}
