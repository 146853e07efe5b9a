// Adding contacts in bulk (API imports of 10,000 a request, `tidings import`): one upsert per batch, with a
// dialect-specific fast path, keeping contact_counts in the same transaction.
import { sql, type Kysely } from 'kysely'
import type SQLite from 'better-sqlite3'
import { sqliteHandleOf } from '../db.js'
import type { Database } from '../tables.js'
import { isPostgres } from '../dialect.js'
import { applyCountChanges, type CountChange } from './contact-counts.js'
import { LOOKUP_CHUNK, forChange, inTransaction } from './contacts.js'

export interface ContactInput {
  email: string
  /** JSON object of the variables to set (merged into the stored ones) */
  variables: string
  phone: string | null
}

export interface UpsertResult {
  id: number
  email: string
  status: number
  inserted: boolean
}

/** Rows per INSERT on SQLite: 9 parameters each stays under SQLite's 32,766-parameter limit. */
const SQLITE_CHUNK = 1000
/**
 * Adds contacts to a list, or updates the ones already there: their variables are merged (new values win),
 * a given phone replaces the stored one, the status is kept. Returns every row with whether it is new.
 * `contacts` must not repeat an address.
 */
export async function upsertContacts(
  db: Kysely<Database>,
  batch: { accountId: number; bookId: number; status: number; source: string; now: number; contacts: ContactInput[] },
): Promise<UpsertResult[]> {
  if (batch.contacts.length === 0) return []
  return inTransaction(db, async (tx) => {
    // Contacts already in the list that get their first phone move to the with-phone count.
    const phoned = batch.contacts.filter((c) => c.phone !== null).map((c) => c.email)
    const gainingPhone = await lockPhoneless(tx, batch.bookId, phoned)
    const results = isPostgres(tx) ? await upsertOnPostgres(tx, batch) : await upsertOnSqlite(tx, batch, sqliteHandleOf(tx))
    const phoneOf = new Map(batch.contacts.map((c) => [c.email, c.phone]))
    const changes: CountChange[] = results
      .filter((r) => r.inserted)
      .map((r) => ({ bookId: batch.bookId, status: r.status, withPhone: phoneOf.get(r.email) != null, delta: 1 }))
    for (const row of gainingPhone) {
      changes.push({ bookId: batch.bookId, status: row.status, withPhone: false, delta: -1 }, { bookId: batch.bookId, status: row.status, withPhone: true, delta: 1 })
    }
    await applyCountChanges(tx, changes)
    return results
  })
}

/** The contacts of the list among `emails` that have no phone yet. */
async function lockPhoneless(db: Kysely<Database>, bookId: number, emails: string[]): Promise<{ status: number }[]> {
  const out: { status: number }[] = []
  for (let start = 0; start < emails.length; start += LOOKUP_CHUNK) {
    const query = db
      .selectFrom('contacts')
      .select('status')
      .where('address_book_id', '=', bookId)
      .where('email', 'in', emails.slice(start, start + LOOKUP_CHUNK))
      .where('phone', 'is', null)
    out.push(...(await forChange(db, query).execute()))
  }
  return out
}

// One statement for the whole batch: the columns travel as arrays, so PostgreSQL parses 8 parameters rather
// than 9 per row; `xmax = 0` is true only for rows this statement inserted.
async function upsertOnPostgres(
  db: Kysely<Database>,
  batch: { accountId: number; bookId: number; status: number; source: string; now: number; contacts: ContactInput[] },
): Promise<UpsertResult[]> {
  const { rows } = await sql<{ id: number; email: string; status: number; inserted: boolean }>`
    insert into contacts (account_id, address_book_id, email, status, phone, variables, source, created_at, updated_at)
    select ${batch.accountId}, ${batch.bookId}, t.email, ${batch.status}, t.phone, t.variables, ${batch.source}, ${batch.now}, ${batch.now}
    from unnest(${batch.contacts.map((c) => c.email)}::text[], ${batch.contacts.map((c) => c.phone)}::text[],
                ${batch.contacts.map((c) => c.variables)}::text[]) as t(email, phone, variables)
    on conflict (address_book_id, email) do update set
      variables = (contacts.variables::jsonb || excluded.variables::jsonb)::text,
      phone = coalesce(excluded.phone, contacts.phone),
      updated_at = excluded.updated_at
    returning id, email, status, (xmax = 0) as inserted`.execute(db)
  return rows.map((r) => ({ id: Number(r.id), email: r.email, status: r.status, inserted: r.inserted }))
}

// SQLite has no xmax. New rows come back from an INSERT that skips existing addresses, so a list being
// filled costs one pass over its indexes; the addresses it skipped are then updated in one statement.
// With the raw handle, the INSERT is one prepared statement run per row inside the open transaction, which
// is 2.5 times faster than a 1,000-row INSERT built by Kysely (docs/benchmarks.md).
async function upsertOnSqlite(
  db: Kysely<Database>,
  batch: { accountId: number; bookId: number; status: number; source: string; now: number; contacts: ContactInput[] },
  sqlite: SQLite.Database,
): Promise<UpsertResult[]> {
  const results: UpsertResult[] = []
  for (let start = 0; start < batch.contacts.length; start += SQLITE_CHUNK) {
    const chunk = batch.contacts.slice(start, start + SQLITE_CHUNK)
    const inserted = insertNewOnSqlite(sqlite, batch, chunk)
    const added = new Set(inserted.map((r) => r.email))
    for (const r of inserted) results.push({ id: Number(r.id), email: r.email, status: r.status, inserted: true })
    const existing = chunk.filter((c) => !added.has(c.email))
    if (existing.length > 0) results.push(...(await updateExistingOnSqlite(db, batch.bookId, existing, batch.now)))
  }
  return results
}

type NewRow = { id: number; email: string; status: number }
type Batch = { accountId: number; bookId: number; status: number; source: string; now: number }

function insertNewOnSqlite(sqlite: SQLite.Database, batch: Batch, chunk: ContactInput[]): NewRow[] {
  const insert = sqlite.prepare(
    `insert into contacts (account_id, address_book_id, email, status, phone, variables, source, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (address_book_id, email) do nothing`,
  )
  const rows: NewRow[] = []
  for (const c of chunk) {
    // No RETURNING: it made each run twice as slow; `changes` says whether the row was new, and its id.
    const done = insert.run(batch.accountId, batch.bookId, c.email, batch.status, c.phone, c.variables, batch.source, batch.now, batch.now)
    if (done.changes === 1) rows.push({ id: Number(done.lastInsertRowid), email: c.email, status: batch.status })
  }
  return rows
}

/** Merges variables and sets phones of contacts already in the list, in one UPDATE … FROM (VALUES …). */
async function updateExistingOnSqlite(db: Kysely<Database>, bookId: number, contacts: ContactInput[], now: number): Promise<UpsertResult[]> {
  const values = sql.join(contacts.map((c) => sql`(${c.email}, ${c.variables}, ${c.phone})`))
  const { rows } = await sql<{ id: number; email: string; status: number }>`
    update contacts set
      variables = json_patch(contacts.variables, given.column2),
      phone = coalesce(given.column3, contacts.phone),
      updated_at = ${now}
    from (values ${values}) as given
    where contacts.address_book_id = ${bookId} and contacts.email = given.column1
    returning contacts.id, contacts.email, contacts.status`.execute(db)
  return rows.map((r) => ({ id: Number(r.id), email: r.email, status: r.status, inserted: false }))
}
