// Counts of contacts per list, status and phone presence, kept by the contact repository in the same
// transaction as each change: a list record no longer counts a million rows. The index that served that
// counting goes, which also makes imports cheaper. Lists get a generation that changes when contacts leave.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('contact_counts')
    .addColumn('address_book_id', 'bigint', (c) => c.notNull().references('address_books.id').onDelete('cascade'))
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('with_phone', 'integer', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('contact_counts_pk', ['address_book_id', 'status', 'with_phone'])
    .execute()
  await sql`
    insert into contact_counts (address_book_id, status, with_phone, count)
    select address_book_id, status, case when phone is null then 0 else 1 end, count(*)
    from contacts
    group by address_book_id, status, case when phone is null then 0 else 1 end`.execute(db)
  await db.schema.dropIndex('contacts_book_status').execute()
  // Bumped whenever contacts leave a count (deleted, or their status changed): a remembered position of
  // a page of the list is only trusted while it stays the same.
  await db.schema
    .alterTable('address_books')
    .addColumn('contacts_generation', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
