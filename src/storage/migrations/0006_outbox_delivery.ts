// Delivery state of the service emails in the outbox: claimed with a lease by the outbox sender, retried
// with backoff on temporary failures, ended as sent, captured (no relay configured) or failed.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('outbox').addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  await db.schema.alterTable('outbox').addColumn('next_attempt_at', 'bigint', (c) => c.notNull().defaultTo(0)).execute()
  await db.schema.alterTable('outbox').addColumn('locked_until', 'bigint').execute()
  await db.schema.alterTable('outbox').addColumn('provider_id', 'text').execute()
  await db.schema.alterTable('outbox').addColumn('last_error', 'text').execute()
  await db.schema.alterTable('outbox').addColumn('sent_at', 'bigint').execute()
  await db.schema.dropIndex('outbox_queued').execute()
  await db.schema.createIndex('outbox_due').on('outbox').column('next_attempt_at').where(sql.ref('status'), '=', 'queued').execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
