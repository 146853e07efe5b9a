// Issue 20: send rates shared by every worker, and claims that take accounts in turn (docs/decisions/0007).
//
// send_rate_buckets: one token bucket per channel (account_id 0: TIDINGS_EMAIL_RATE and its SMS/Viber peers) and per
// channel and account (TIDINGS_EMAIL_ACCOUNT_RATE and peers), which every worker takes from a tenth of a second's
// worth at a time (storage/repos/send-rate-buckets.ts). No foreign key: account 0 is no account, and the row of a
// deleted account is a few dozen bytes that no claim reads again. Tokens are counted in millionths so that a refill
// (elapsed ms × the rate in thousandths of a unit per ms) stays a whole number for rates such as 0.5/s.
//
// messages_due_by_account replaces messages_due (channel, next_attempt_at, id): the claim takes accounts in turn
// (storage/repos/message-queue.ts). It steps from one account with queued messages to the next (one probe each) and
// takes each account's due rows in due order; in due order alone, an account's campaign of 100,000, due first, held
// back every campaign that fell due after it until it was sent. Within an account the order is 0015's, id included,
// so a claim still reads its 50 rows from the index in order, never a sort of every due row. Kept beside the old
// index, every message paid for two index entries, written when copied and removed when sent: 26 µs of the
// worker's CPU per message on SQLite (220 against 194, `npm run bench:send`). The queue's depth for `tidings status`
// and /metrics (repos/queue-depths.ts) counts the due entries of the channel's range, as before, now reading its
// later ones too (a scheduled campaign's).
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
  // ifNotExists, ifExists: SQLite runs a migration outside a transaction, so one cut short here is run again from the start.
  await db.schema
    .createIndex('messages_due_by_account')
    .ifNotExists()
    .on('messages')
    .columns(['channel', 'account_id', 'next_attempt_at', 'id'])
    .where(sql.ref('queued'), '=', 1)
    .execute()
  await db.schema.dropIndex('messages_due').ifExists().execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
