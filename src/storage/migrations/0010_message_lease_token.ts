// The owner of a claimed message's lease: a token per claim. The campaign sender renews its lease while a batch
// is in flight (a relay may take 10 minutes to answer), so `locked_until` changes under it and cannot tell the
// holder apart any more; the token does, and fences the results of a worker whose lease another took.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('lease_token', 'text').execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
