// Webhooks (API.md 2.9, 4.9, 6) and the events they deliver. An event is written in the transaction of the
// change that caused it, with one delivery row per endpoint (URL) subscribed to its action; the webhook
// dispatcher sends each endpoint's queued deliveries in order, a batch at a time, holding a lease on the
// endpoint so no two deliveries to one URL run at once.
import { sql, type Kysely } from 'kysely'
import { withId } from './helpers.js'

export async function up(db: Kysely<unknown>): Promise<void> {
  // The per-account secret that signs deliveries (Standard Webhooks), made on first use.
  await db.schema.alterTable('accounts').addColumn('webhook_secret', 'text').execute()

  await withId(db, db.schema.createTable('webhook_endpoints'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('webhook_endpoints_url').unique().on('webhook_endpoints').columns(['account_id', 'url']).execute()

  await withId(db, db.schema.createTable('webhooks'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('endpoint_id', 'bigint', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('webhooks_action').unique().on('webhooks').columns(['account_id', 'action', 'endpoint_id']).execute()

  await withId(db, db.schema.createTable('events'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()

  await withId(db, db.schema.createTable('webhook_deliveries'))
    .addColumn('endpoint_id', 'bigint', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('event_id', 'bigint', (c) => c.notNull().references('events.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .addColumn('last_error', 'text')
    .execute()
  // Pruning finds the events whose deliveries are all gone.
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_id').execute()
  // The queue: only deliveries still to send, in event order per endpoint.
  await db.schema.createIndex('webhook_deliveries_queued').on('webhook_deliveries').columns(['endpoint_id', 'id']).where(sql.ref('status'), '=', 'queued').execute()

  // The delivery log (GET /v2/email-service/webhook/{id}/deliveries): the last requests to each endpoint.
  await withId(db, db.schema.createTable('webhook_attempts'))
    .addColumn('endpoint_id', 'bigint', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('events', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .execute()
  await db.schema.createIndex('webhook_attempts_endpoint').on('webhook_attempts').columns(['endpoint_id', 'id']).execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
