// Issue 21: two indexes the console's contacts page needs on a 1,000,000-contact list.
// - "Not active" (GET /addressbooks/{id}/emails?not_active=true) walked the (address_book_id, id) index and read every
//   row's status to find none: 2.5 s on PostgreSQL where nobody is inactive. A partial index holds only the inactive
//   contacts (usually a few percent), so that page reads just its rows; adds (status 0 or 1) never touch it.
// - The search by the start of an address (`email_prefix`, repos/contacts.ts searchContacts) is a range scan over
//   the address folded to lower case, in byte order (PostgreSQL: COLLATE "C", whatever the database's collation; SQLite:
//   NOCASE, which folds A–Z), with the id as the tie-break that keyset pages go on with (SQLite's indexes end with it).
import { sql, type Kysely } from 'kysely'
import { isPostgres } from '../dialect.js'

/**
 * The statuses of the "Not active" filter are every status but New (0) and Active (1). The query must name them
 * with the same literal list (repos/contacts.ts INACTIVE_PREDICATE) for either planner to know the index applies.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index contacts_book_inactive on contacts (address_book_id, id) where status not in (0, 1)`.execute(db)
  if (isPostgres(db)) await sql`create index contacts_book_email_folded on contacts (address_book_id, (lower(email) collate "C"), id)`.execute(db)
  else await sql`create index contacts_book_email_folded on contacts (address_book_id, email collate nocase)`.execute(db)
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only')
}
