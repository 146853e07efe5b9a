// Viber (issue 18): sender names and system-message templates the operator moderates, the Viber phone
// blacklist, and what a Viber message needs on the shared messages table: the provider's latest report, and the
// SMS sent in its place (a message of channel 'sms' in the same campaign, pointing at the Viber message).
import { sql, type Kysely } from 'kysely'
import { withId } from './helpers.js'

export async function up(db: Kysely<unknown>): Promise<void> {
  // Sender names (API.md 2.10): registered by the operator, `moderation` → `verified` or `blocked`.
  await withId(db, db.schema.createTable('viber_senders'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('service_type', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('web_site', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('country', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('traffic_type', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('admin_comment', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('viber_senders_account_name').unique().on('viber_senders').columns(['account_id', 'name']).execute()

  // Texts a system message (message_type 3) must equal: `moderation` → `approved`.
  await withId(db, db.schema.createTable('viber_templates'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('viber_templates_account').on('viber_templates').columns(['account_id', 'status']).execute()

  // The published entry has an id of its own (API.md 2.10).
  await withId(db, db.schema.createTable('viber_blacklist'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('viber_blacklist_account_phone').unique().on('viber_blacklist').columns(['account_id', 'phone']).execute()

  // The provider's latest report of a Viber message (delivered, read, clicked, rejected…), written by its
  // callback even while the submit's answer is still in flight; the recording of that answer applies it.
  await db.schema.alterTable('messages').addColumn('report', 'text').execute()
  // The Viber message an SMS was sent instead of (resend_sms): its fallback, in the same campaign.
  await db.schema.alterTable('messages').addColumn('fallback_of', 'bigint').execute()
  await db.schema.createIndex('messages_fallback_of').on('messages').column('fallback_of').where(sql.ref('fallback_of'), 'is not', null).execute()
  // A number is a campaign's recipient once per channel: a Viber message and the SMS sent in its place share it.
  await db.schema.dropIndex('messages_campaign_email').execute()
  await db.schema.createIndex('messages_campaign_address').unique().on('messages').columns(['campaign_id', 'channel', 'address']).execute()
  // Viber messages sent and waiting for a report until their live time ends (next_attempt_at): the sweep that
  // ends them as not delivered (and sends their SMS) reads this index only.
  await db.schema
    .createIndex('messages_viber_awaiting')
    .on('messages')
    .column('next_attempt_at')
    .where(sql<boolean>`channel = 'viber' and status = 1`)
    .execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
