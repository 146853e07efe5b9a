// Issue 21: the console's campaign report reads one campaign's messages by index ranges, however many it has
// (docs/benchmarks.md "Campaign report": on 1,000,000 messages the timeline took 4 s on SQLite and opens per
// country 0.66 s, each reading every message of the campaign).
// - Opens per country, first opens and first clicks over time: partial indexes of only the opened (clicked) messages,
//   so sending adds nothing to them; a message enters them once, at its first open (click).
// - Recipients by keyset, per status: (campaign, status, id). SQLite's index already ends with the rowid, which is
//   the id; PostgreSQL's replaces (campaign, status), whose every reader it serves.
import { sql, type Kysely } from 'kysely'
import { isPostgres } from '../dialect.js'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('messages_campaign_country').on('messages').columns(['campaign_id', 'country']).where(sql.ref('country'), 'is not', null).execute()
  await db.schema.createIndex('messages_campaign_opened').on('messages').columns(['campaign_id', 'opened_at']).where(sql.ref('opened_at'), 'is not', null).execute()
  await db.schema.createIndex('messages_campaign_clicked').on('messages').columns(['campaign_id', 'clicked_at']).where(sql.ref('clicked_at'), 'is not', null).execute()
  if (isPostgres(db)) {
    await db.schema.createIndex('messages_campaign_status_id').on('messages').columns(['campaign_id', 'status', 'id']).execute()
    await db.schema.dropIndex('messages_campaign_status').execute()
  }
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
