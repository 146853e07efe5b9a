// Issue 21: the console's dashboard reads an account's emails per UTC day (GET /statistics/email/daily,
// storage/repos/email-days.ts). Each message counts on the day it was handed to a mail server: `sent_at` when the
// relay took it, `updated_at` when the relay refused it outright (such a message has no `sent_at`, and that
// refusal is the last write it gets).
//
// Two partial indexes, one for each kind of day, each holding what the count reads (status, first open, first
// click), so the count reads the index alone and never the table: a message enters one only once it has an
// answer, so a queued message (copied, claimed, leased, retried) costs them nothing. campaign_counts (0014) has no
// time, and the events table keeps only what a webhook subscribes to: neither can say what happened on which day.
import { sql, type Kysely } from 'kysely'
import { isPostgres } from '../dialect.js'

/** A message with an answer (neither queued, waiting for a retry, nor never sent) and no sent_at: refused at once. */
export const REFUSED = sql`channel = 'email' and sent_at is null and status not in (0, 7, 13)`
/** A message the relay took. */
export const TAKEN = sql`channel = 'email' and sent_at is not null`

export async function up(db: Kysely<unknown>): Promise<void> {
  // PostgreSQL: the counted columns as INCLUDE (not in the key, no ordering work); SQLite has no INCLUDE: in the key.
  const covering = (day: 'sent_at' | 'updated_at') =>
    isPostgres(db) ? sql.raw(`(account_id, ${day}) include (status, opened_at, clicked_at)`) : sql.raw(`(account_id, ${day}, status, opened_at, clicked_at)`)
  // if not exists: SQLite runs a migration outside a transaction, so one cut short here is run again from the start.
  await sql`create index if not exists messages_email_sent_days on messages ${covering('sent_at')} where ${TAKEN}`.execute(db)
  await sql`create index if not exists messages_email_refused_days on messages ${covering('updated_at')} where ${REFUSED}`.execute(db)
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
