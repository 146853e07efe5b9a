// Issue 20: send rates shared by every worker, and claims that take accounts in turn (docs/decisions/0006).
//
// send_rate_buckets: one token bucket per channel (account_id 0: TIDINGS_EMAIL_RATE and its SMS/Viber peers) and per
// channel and account (TIDINGS_EMAIL_ACCOUNT_RATE and peers), which every worker takes from a tenth of a second's
// worth at a time (storage/repos/send-rate-buckets.ts). No foreign key: account 0 is no account, and the row of a
// deleted account is a few dozen bytes that no claim reads again. Tokens are counted in millionths so that a refill
// (elapsed ms × the rate in thousandths of a unit per ms) stays a whole number for rates such as 0.5/s.
//
// messages_due_by_account: the claim takes accounts in turn (storage/repos/message-queue.ts): it steps from one
// account with queued messages to the next (one probe each) and takes each account's due rows in due order. With
// messages_due alone (channel, next_attempt_at, id) an account's campaign of 100,000, due first, held back every
// campaign that fell due after it until it was sent. messages_due stays: `tidings status` and /metrics read a
// channel's due range from it (repos/queue-depths.ts), and the claim of a single account reads its rows in the
// same order 0015 gave it, 50 from the index, never a sort of every due row.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('send_rate_buckets')
    .ifNotExists()
    .addColumn('channel', 'text', (c) => c.notNull())
    // 0: the channel's bucket for every account together.
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    // Millionths of a unit (a message, an SMS part) left after the last take.
    .addColumn('micro_tokens', 'bigint', (c) => c.notNull())
    // Epoch ms of the last take: the bucket has refilled at the rate since then.
    .addColumn('refilled_at', 'bigint', (c) => c.notNull())
    // Whole units the last take was given, read back by its RETURNING (which sees only the new row).
    .addColumn('granted', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('send_rate_buckets_pkey', ['channel', 'account_id'])
    .execute()
  // ifNotExists: SQLite runs a migration outside a transaction, so one cut short here is run again from the start.
  await db.schema
    .createIndex('messages_due_by_account')
    .ifNotExists()
    .on('messages')
    .columns(['channel', 'account_id', 'next_attempt_at', 'id'])
    .where(sql.ref('queued'), '=', 1)
    .execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
