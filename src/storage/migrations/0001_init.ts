// Accounts, credentials, the balance ledger, mailing lists with their variables, and the contacts they count.
import { sql, type Kysely } from 'kysely'
import { withId } from './helpers.js'

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('accounts'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().unique())
    .addColumn('client_secret_hash', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull().defaultTo('pro'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('access_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('access_tokens_expires_at').on('access_tokens').column('expires_at').execute()

  await withId(db, db.schema.createTable('api_keys'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute()

  await withId(db, db.schema.createTable('ledger_entries'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('amount_micros', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('ledger_entries_account').on('ledger_entries').column('account_id').execute()

  await withId(db, db.schema.createTable('address_books'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  // A name is unique among the account's lists that are not marked as deleted (status 1).
  await db.schema
    .createIndex('address_books_account_name')
    .on('address_books')
    .columns(['account_id', 'name'])
    .unique()
    .where(sql.ref('status'), '<>', 1)
    .execute()
  await db.schema.createIndex('address_books_account_id').on('address_books').columns(['account_id', 'id']).execute()

  await withId(db, db.schema.createTable('contacts'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('address_book_id', 'bigint', (c) => c.notNull().references('address_books.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('phone', 'text')
    .addColumn('variables', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('contacts_book_email').on('contacts').columns(['address_book_id', 'email']).unique().execute()
  await withId(db, db.schema.createTable('address_book_variables'))
    .addColumn('address_book_id', 'bigint', (c) => c.notNull().references('address_books.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('address_book_variables_book_name', ['address_book_id', 'name'])
    .execute()

  await db.schema.createIndex('contacts_account_email').on('contacts').columns(['account_id', 'email']).execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
