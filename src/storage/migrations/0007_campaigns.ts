// Email campaigns and their messages. A campaign snapshots its recipients into `messages`, one row per
// recipient (ARCHITECTURE.md "The sending model"): that table is both the dispatcher's queue and the
// per-recipient statistics. `queued` = 1 marks the rows the dispatcher may claim once `next_attempt_at` is due.
import { sql, type Kysely } from 'kysely'
import { withId } from './helpers.js'

export async function up(db: Kysely<unknown>): Promise<void> {
  // AMP bodies need the operator's approval per account (API.md 4.2.1 `body_amp`).
  await db.schema.alterTable('accounts').addColumn('amp_allowed', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  await withId(db, db.schema.createTable('campaigns'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('is_test', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sender_name', 'text', (c) => c.notNull())
    .addColumn('sender_email', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('body_amp', 'text')
    .addColumn('template_id', 'bigint')
    .addColumn('lang', 'text', (c) => c.notNull().defaultTo('en'))
    .addColumn('list_ids', 'text', (c) => c.notNull())
    .addColumn('segment_id', 'bigint')
    .addColumn('send_at', 'bigint', (c) => c.notNull())
    .addColumn('scheduled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('use_dynamic_list', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attachments', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('track_opens', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('track_clicks', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('utm_campaign', 'text')
    .addColumn('all_email_qty', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('tariff_email_qty', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('paid_email_qty', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('skipped_qty', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('price_micros', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('charged_micros', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('campaigns_account').on('campaigns').columns(['account_id', 'id']).execute()

  // Which lists a campaign went to, for GET /addressbooks/{id}/campaigns.
  await db.schema
    .createTable('campaign_lists')
    .addColumn('campaign_id', 'bigint', (c) => c.notNull().references('campaigns.id'))
    .addColumn('address_book_id', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('campaign_lists_pk', ['campaign_id', 'address_book_id'])
    .execute()
  await db.schema.createIndex('campaign_lists_book').on('campaign_lists').column('address_book_id').execute()

  await withId(db, db.schema.createTable('messages'))
    .addColumn('campaign_id', 'bigint', (c) => c.notNull().references('campaigns.id'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('contact_id', 'bigint')
    .addColumn('address_book_id', 'bigint')
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('variables', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('queued', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'bigint')
    .addColumn('provider_id', 'text')
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'bigint')
    .addColumn('opened_at', 'bigint')
    .addColumn('clicked_at', 'bigint')
    .addColumn('unsubscribed_at', 'bigint')
    .addColumn('country', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('messages_campaign_email').unique().on('messages').columns(['campaign_id', 'email']).execute()
  await db.schema.createIndex('messages_campaign_status').on('messages').columns(['campaign_id', 'status']).execute()
  await db.schema.createIndex('messages_address').on('messages').columns(['account_id', 'email']).execute()
  // Only rows waiting to be sent are in the claim index (ARCHITECTURE.md: 5–7x faster claims).
  await db.schema.createIndex('messages_due').on('messages').column('next_attempt_at').where(sql.ref('queued'), '=', 1).execute()

  // Clicks per link of a campaign (GET /campaigns/{id}/referrals, statistics.clicks).
  await db.schema
    .createTable('campaign_link_clicks')
    .addColumn('campaign_id', 'bigint', (c) => c.notNull().references('campaigns.id'))
    .addColumn('link', 'text', (c) => c.notNull())
    .addColumn('clicks', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('campaign_link_clicks_pk', ['campaign_id', 'link'])
    .execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
