// The email audience: contact paging and counting indexes, where a contact came from, tags and their
// links, the blacklist, senders, durable jobs, the outbox of service emails, and instance settings.
import { sql, type Kysely } from 'kysely'
import { withId } from './helpers.js'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('contacts').addColumn('source', 'text', (c) => c.notNull().defaultTo('api')).execute()
  // Keyset paging of a list in insertion order, and the per-status counts shown in every list record.
  await db.schema.createIndex('contacts_book_id').on('contacts').columns(['address_book_id', 'id']).execute()
  await db.schema.createIndex('contacts_book_status').on('contacts').columns(['address_book_id', 'status']).execute()

  await withId(db, db.schema.createTable('tags'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('tags_account').on('tags').columns(['account_id', 'id']).execute()

  // A tag pinned to an email address or a phone number of the account (not to one list's contact).
  await db.schema
    .createTable('tag_links')
    .addColumn('tag_id', 'bigint', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('tag_links_pk', ['tag_id', 'kind', 'value'])
    .execute()
  await db.schema.createIndex('tag_links_target').on('tag_links').columns(['account_id', 'kind', 'value']).execute()

  await db.schema
    .createTable('email_blacklist')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('email_blacklist_pk', ['account_id', 'email'])
    .execute()

  await withId(db, db.schema.createTable('senders'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text')
    .addColumn('code_expires_at', 'bigint')
    .addColumn('codes_sent', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('codes_window_started_at', 'bigint')
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('senders_account_email', ['account_id', 'email'])
    .execute()

  // Durable background work (tag changes today): claimed with a lease, so a crash only delays a job.
  await withId(db, db.schema.createTable('jobs'))
    .addColumn('account_id', 'bigint', (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('queue_id', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('jobs_due').on('jobs').column('run_at').where(sql.ref('status'), '=', 'queued').execute()

  // Emails the service itself sends (double opt-in confirmations, sender activation codes), waiting for
  // the email channel; with no SMTP relay configured they stay here as the capture outbox.
  await withId(db, db.schema.createTable('outbox'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('from_email', 'text', (c) => c.notNull())
    .addColumn('from_name', 'text', (c) => c.notNull())
    .addColumn('to_email', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('html', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('outbox_account').on('outbox').columns(['account_id', 'id']).execute()
  await db.schema.createIndex('outbox_queued').on('outbox').column('id').where(sql.ref('status'), '=', 'queued').execute()

  // Instance-wide values generated once and shared by every process (the signing key of links).
  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
