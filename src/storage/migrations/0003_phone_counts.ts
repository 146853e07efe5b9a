// Counting the contacts with a phone per list and status from an index, not from the table: with the
// (address_book_id, status) index of 0002 the counts of a list record are read without touching a row.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('contacts_book_status_with_phone')
    .on('contacts')
    .columns(['address_book_id', 'status'])
    .where(sql.ref('phone'), 'is not', null)
    .execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
