// Email templates (API.md 2.4, 4.3): an account's own, and system templates (account_id null) shipped with
// Tidings. `public_id` is the string id clients see; it changes on every edit, while `id` (real_id) stays.
import { sql, type Kysely } from 'kysely'
import { withId } from './helpers.js'

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('templates'))
    .addColumn('account_id', 'bigint', (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('public_id', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_slug', 'text', (c) => c.notNull())
    .addColumn('lang', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('category', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  // Names and slugs are unique among an account's own templates (SendPulse's error 573 for names).
  await db.schema.createIndex('templates_account_name').on('templates').columns(['account_id', 'name']).unique().where(sql.ref('account_id'), 'is not', null).execute()
  await db.schema.createIndex('templates_account_slug').on('templates').columns(['account_id', 'name_slug']).execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
