// Email events (API.md 6), written in the transaction of the change that caused them, each with a delivery
// row for every endpoint subscribed to its action: the webhook dispatcher's queue.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'
import { endpointsFor } from './webhooks.js'
import { compiledOnce } from '../prepared-query.js'
import { isAmong, listArgument } from './given-rows.js'

export const DELIVERY_STATUS = { queued: 'queued', delivered: 'delivered', failed: 'failed' } as const

/** Rows per INSERT, far below both databases' bound-parameter limits. */
const CHUNK = 500

/**
 * Records events of one action for the endpoints subscribed to it; `db` must be the transaction of the change
 * they describe. An action no webhook subscribes to is not stored (docs/decisions/0001-events-for-subscribers.md:
 * writing every event cost 42 % of the contact import's speed), and its payloads are not even built: building
 * them may read the database, on hot paths such as every batch of a campaign.
 */
export async function recordEvents(
  db: Kysely<Database>,
  e: { accountId: number; action: string; payloads: () => readonly object[] | Promise<readonly object[]>; now: number },
): Promise<void> {
  const endpoints = await endpointsFor(db, e.accountId, e.action)
  if (endpoints.length === 0) return
  const payloads = await e.payloads()
  await insertEvents(db, payloads.map((payload) => ({ accountId: e.accountId, action: e.action, payload, createdAt: e.now, endpoints })))
}

const subscriptions = compiledOnce((db, [accountIds, actions]) =>
  db
    .selectFrom('webhooks')
    .select(['account_id', 'action', 'endpoint_id'])
    .distinct()
    .where(isAmong(db, 'account_id', accountIds, 'bigint'))
    .where(isAmong(db, 'action', actions, 'text'))
    .orderBy('endpoint_id'),
)

/** The endpoints each account subscribed to each action (only those with some), keyed by subscriptionKey. */
export async function subscriptionsOf(db: Kysely<Database>, accountIds: readonly number[], actions: readonly string[]): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>()
  if (accountIds.length === 0 || actions.length === 0) return out
  const { rows } = await subscriptions(db, [listArgument(db, accountIds), listArgument(db, actions)])
  for (const r of rows) {
    const key = subscriptionKey(Number(r.account_id), r.action)
    const endpoints = out.get(key)
    if (endpoints) endpoints.push(Number(r.endpoint_id))
    else out.set(key, [Number(r.endpoint_id)])
  }
  return out
}

export function subscriptionKey(accountId: number, action: string): string {
  return `${accountId} ${action}`
}

export interface EventRow {
  accountId: number
  action: string
  payload: object
  createdAt: number
  /** Each gets a queued delivery of the event. */
  endpoints: readonly number[]
}

/**
 * Stores events in the order given (their ids follow it, so each endpoint receives them in that order), each with
 * a queued delivery for each of its endpoints; `db` must be the transaction of the change they describe. Returns
 * the events' ids, in the order given.
 */
export async function insertEvents(db: Kysely<Database>, events: readonly EventRow[]): Promise<number[]> {
  const eventIds: number[] = []
  for (let start = 0; start < events.length; start += CHUNK) {
    const chunk = events.slice(start, start + CHUNK)
    const rows = await db
      .insertInto('events')
      .values(chunk.map((e) => ({ account_id: e.accountId, action: e.action, payload: JSON.stringify(e.payload), created_at: e.createdAt })))
      .returning('id')
      .execute()
    // Ids are drawn in the order of the rows (RETURNING promises no order): the nth smallest is the nth event's.
    const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b)
    eventIds.push(...ids)
    const deliveries = chunk.flatMap((e, i) => e.endpoints.map((endpointId) => ({ endpoint_id: endpointId, event_id: ids[i]!, status: DELIVERY_STATUS.queued, created_at: e.createdAt })))
    for (let i = 0; i < deliveries.length; i += CHUNK) await db.insertInto('webhook_deliveries').values(deliveries.slice(i, i + CHUNK)).execute()
  }
  return eventIds
}
