// The claim index in the claim's own order: channel, due time, then id. A campaign's messages all fall due at
// the same instant, and without the id the claim (ORDER BY next_attempt_at, id LIMIT 50 FOR UPDATE SKIP LOCKED,
// storage/repos/message-queue.ts) read every due message of the channel and sorted them for each batch: 169 ms
// and a 3 MB sort on disk per claim on PostgreSQL with 94,000 due (EXPLAIN ANALYZE during `npm run bench:send`),
// which capped a campaign near 1,500 messages/s however many workers sent it. With the id the claim reads its 50
// rows from the index in order.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  // ifExists: SQLite runs a migration outside a transaction, so one cut short here is run again from the start.
  await db.schema.dropIndex('messages_due').ifExists().execute()
  await db.schema.createIndex('messages_due').on('messages').columns(['channel', 'next_attempt_at', 'id']).where(sql.ref('queued'), '=', 1).execute()
}
