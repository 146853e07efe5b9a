// The delivery log: one row per request made to an endpoint, the last 200 kept.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'

export interface AttemptRow {
  startedAt: number
  events: number
  statusCode: number | null
  latencyMs: number
  error: string | null
}

/** Requests kept per endpoint. */
const KEPT = 200

export async function logAttempt(db: Kysely<Database>, endpointId: number, attempt: AttemptRow): Promise<void> {
  await db
    .insertInto('webhook_attempts')
    .values({ endpoint_id: endpointId, started_at: attempt.startedAt, events: attempt.events, status_code: attempt.statusCode, latency_ms: attempt.latencyMs, error: attempt.error })
    .execute()
  const oldestKept = await db.selectFrom('webhook_attempts').select('id').where('endpoint_id', '=', endpointId).orderBy('id', 'desc').offset(KEPT - 1).limit(1).executeTakeFirst()
  if (oldestKept) await db.deleteFrom('webhook_attempts').where('endpoint_id', '=', endpointId).where('id', '<', oldestKept.id).execute()
}

export async function lastAttempts(db: Kysely<Database>, endpointId: number, limit: number): Promise<AttemptRow[]> {
  const rows = await db.selectFrom('webhook_attempts').selectAll().where('endpoint_id', '=', endpointId).orderBy('id', 'desc').limit(limit).execute()
  return rows.map((r) => ({ startedAt: Number(r.started_at), events: r.events, statusCode: r.status_code, latencyMs: r.latency_ms, error: r.error }))
}
