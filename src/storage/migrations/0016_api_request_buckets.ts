// Issue 20: the per-account request limit (TIDINGS_API_RATE, TIDINGS_API_BURST) is one token bucket per account
// shared by every API process, so two processes give an account its limit once, not twice. Each process takes
// tokens from its account's row in chunks (storage/repos/api-request-buckets.ts): a few statements a second per
// busy account, never one per request. Tokens are counted in thousandths so that a refill (elapsed ms × requests
// per second) stays a whole number on both databases.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('api_request_buckets')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    // Thousandths of a request left in the bucket after the last take: 0 to burst × 1000.
    .addColumn('milli_tokens', 'bigint', (c) => c.notNull())
    // Epoch ms of the last take: the bucket has refilled at the rate since then.
    .addColumn('refilled_at', 'bigint', (c) => c.notNull())
    // Whole requests the last take was given, read back by its RETURNING (which sees only the new row).
    .addColumn('granted', 'bigint', (c) => c.notNull())
    .execute()
}
