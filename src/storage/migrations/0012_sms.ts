// SMS (issue 17): numbers in lists, the SMS blacklist, sender IDs, and SMS campaigns riding the same
// campaigns and messages tables as email, so one dispatcher, one ledger and one retry rule serve every channel.
import { sql, type Kysely } from 'kysely'
import { withId } from './helpers.js'

export async function up(db: Kysely<unknown>): Promise<void> {
  // A campaign's channel; the channel's own settings (an SMS route table, link tracking) as JSON.
  await db.schema.alterTable('campaigns').addColumn('channel', 'text', (c) => c.notNull().defaultTo('email')).execute()
  await db.schema.alterTable('campaigns').addColumn('channel_options', 'text', (c) => c.notNull().defaultTo('{}')).execute()
  await db.schema.createIndex('campaigns_account_channel').on('campaigns').columns(['account_id', 'channel', 'created_at']).execute()

  // A message's recipient is an email address or, for SMS and Viber, a number's E.164 digits: the column says
  // so. (SQLite keeps the indexes on it, under their old names.)
  await db.schema.alterTable('messages').renameColumn('email', 'address').execute()
  await db.schema.alterTable('messages').addColumn('channel', 'text', (c) => c.notNull().defaultTo('email')).execute()
  // What this one message was charged (SMS: segments × the price of the number's country and route), so
  // what is not sent is given back exactly; null where the campaign's price is per message (email).
  await db.schema.alterTable('messages').addColumn('price_micros', 'bigint').execute()
  // Parts (segments) of an SMS: it is delivered when every part is.
  await db.schema.alterTable('messages').addColumn('parts', 'integer').execute()
  // Each channel claims its own due rows (its own rate limit and connection): the claim index leads with it.
  await db.schema.dropIndex('messages_due').execute()
  await db.schema.createIndex('messages_due').on('messages').columns(['channel', 'next_attempt_at']).where(sql.ref('queued'), '=', 1).execute()

  // One row per submitted SMS part, keyed by the SMSC's message id. A delivery receipt may arrive before the
  // worker has stored the submit's answer: it is stored here first (message_id still null) and matched when
  // the answer is recorded, whichever comes first.
  await db.schema
    .createTable('sms_parts')
    .addColumn('provider_id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'bigint')
    .addColumn('state', 'text')
    .addColumn('error', 'text')
    .addColumn('received_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('sms_parts_message').on('sms_parts').column('message_id').execute()

  // The numbers of a mailing list (API.md 4.11), apart from its email contacts.
  await withId(db, db.schema.createTable('list_phones'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('address_book_id', 'bigint', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('variables', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('list_phones_book_phone').unique().on('list_phones').columns(['address_book_id', 'phone']).execute()
  await db.schema.createIndex('list_phones_book_status').on('list_phones').columns(['address_book_id', 'status']).execute()
  await db.schema.createIndex('list_phones_account_phone').on('list_phones').columns(['account_id', 'phone']).execute()

  await db.schema
    .createTable('sms_blacklist')
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('sms_blacklist_pk', ['account_id', 'phone'])
    .execute()

  // Sender IDs the operator registered for an account; status 0 in moderation, 1 active, 2 rejected (API.md 3.4).
  await withId(db, db.schema.createTable('sms_senders'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('sms_senders_account_name').unique().on('sms_senders').columns(['account_id', 'name']).execute()

  // Short tracked links of SMS campaigns (stat_link_tracking): a random code per link of a campaign.
  await db.schema
    .createTable('short_links')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('campaign_id', 'bigint', (c) => c.notNull().references('campaigns.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('short_links_campaign_url').unique().on('short_links').columns(['campaign_id', 'url']).execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
