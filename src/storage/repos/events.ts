// Email events (API.md 6), written in the transaction of the change that caused them, each with a delivery
// row for every endpoint subscribed to its action: the webhook dispatcher's queue.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'
import { endpointsFor } from './webhooks.js'

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
  for (let start = 0; start < payloads.length; start += CHUNK) {
    const rows = await db
      .insertInto('events')
      .values(payloads.slice(start, start + CHUNK).map((payload) => ({ account_id: e.accountId, action: e.action, payload: JSON.stringify(payload), created_at: e.now })))
      .returning('id')
      .execute()
    const deliveries = rows.flatMap((r) => endpoints.map((endpointId) => ({ endpoint_id: endpointId, event_id: Number(r.id), status: DELIVERY_STATUS.queued, created_at: e.now })))
    for (let i = 0; i < deliveries.length; i += CHUNK) await db.insertInto('webhook_deliveries').values(deliveries.slice(i, i + CHUNK)).execute()
  }
}
