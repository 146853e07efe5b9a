// The copy of a service email that its account is shown (GET /outbox): the same email with the secret that
// proves control of the address (a sender's activation code, a double opt-in link) replaced by [hidden].
// Rows queued before this migration have none; the outbox then hides their whole content.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('outbox').addColumn('shown_subject', 'text').execute()
  await db.schema.alterTable('outbox').addColumn('shown_html', 'text').execute()
  await db.schema.alterTable('outbox').addColumn('shown_text', 'text').execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
