// Adding contacts (POST /addressbooks/{id}/emails of 2 contacts as well as API imports of 10,000 a request and
// `tidings import`): one upsert per batch, with a dialect-specific path, keeping contact_counts in the same
// transaction. Contacts travel as columns (see services/audience/contact-input.ts ContactColumns), and come back
// as columns of the same positions.
import { sql, type Kysely } from 'kysely'
import type SQLite from 'better-sqlite3'
import { copyFrom, sqliteHandleOf } from '../db.js'
import { copyRow } from '../copy-text.js'
import type { Database } from '../tables.js'
import { isPostgres } from '../dialect.js'
import { compiledOnce } from '../prepared-query.js'
import { applyCountChanges, type CountChange } from './contact-counts.js'
import { LOOKUP_CHUNK, forChange, inTransaction } from './contacts.js'

/** Contacts to store; the same positions in each column, no address twice. */
export interface ContactColumns {
  emails: readonly string[]
  phones: readonly (string | null)[]
  /** JSON object of the variables to set (merged into the stored ones) */
  variables: readonly string[]
}

/** Columns from one object per contact (tests, small callers). */
export function contactColumns(contacts: readonly { email: string; phone: string | null; variables: string }[]): ContactColumns {
  return { emails: contacts.map((c) => c.email), phones: contacts.map((c) => c.phone), variables: contacts.map((c) => c.variables) }
}

export interface UpsertBatch {
  accountId: number
  bookId: number
  /** The status of new contacts (existing ones keep theirs). */
  status: number
  source: string
  now: number
  contacts: ContactColumns
}

/** Each contact's row, at the position it was given. */
export interface UpsertedRows {
  ids: number[]
  statuses: number[]
  /** True where this call added the contact, false where it was in the list already. */
  inserted: boolean[]
  /** How many were added. */
  added: number
}

/**
 * Which PostgreSQL path a batch takes: up to `plainMax` contacts, one INSERT of arrays (`unnest`); above, COPY
 * through a staging table. Measured with bench/contact-adds.ts (docs/benchmarks.md, "Small adds"): the plain path
 * costs less of both Node's and PostgreSQL's CPU up to 1,000 contacts (an add of 2: 0.25–0.35 ms less of Node's,
 * 0.4–0.55 ms less of PostgreSQL's); at 3,000 PostgreSQL's cost is the same, and at 10,000 (an API import) the
 * arrays cost Node 8–16 % more than COPY text. Tests and the benchmark set it to drive one path; nothing else changes it.
 */
export const upsertPaths = { plainMax: 1000 }

/** Rows per UPDATE on SQLite: 3 parameters each stays under SQLite's 32,766-parameter limit. */
const SQLITE_CHUNK = 1000

/**
 * Adds contacts to a list, or updates the ones already there: their variables are merged (new values win),
 * a given phone replaces the stored one, the status is kept.
 */
export async function upsertContacts(db: Kysely<Database>, batch: UpsertBatch): Promise<UpsertedRows> {
  const size = batch.contacts.emails.length
  if (size === 0) return { ids: [], statuses: [], inserted: [], added: 0 }
  return inTransaction(db, async (tx) => {
    // Contacts already in the list that get their first phone move to the with-phone count.
    const phoned = batch.contacts.emails.filter((_, i) => batch.contacts.phones[i] !== null)
    const gainingPhone = phoned.length > 0 ? await lockPhoneless(tx, batch.bookId, phoned) : []
    const rows = !isPostgres(tx)
      ? await upsertOnSqlite(tx, batch, sqliteHandleOf(tx))
      : size <= upsertPaths.plainMax
        ? await upsertOnPostgresPlain(tx, batch)
        : await upsertOnPostgres(tx, batch)
    // New rows all have the batch's status: two counters say how many with and without a phone.
    let newWithPhone = 0
    for (let i = 0; i < size; i++) if (rows.inserted[i] && batch.contacts.phones[i] !== null) newWithPhone++
    const changes: CountChange[] = [
      { bookId: batch.bookId, status: batch.status, withPhone: true, delta: newWithPhone },
      { bookId: batch.bookId, status: batch.status, withPhone: false, delta: rows.added - newWithPhone },
    ]
    for (const row of gainingPhone) {
      changes.push({ bookId: batch.bookId, status: row.status, withPhone: false, delta: -1 }, { bookId: batch.bookId, status: row.status, withPhone: true, delta: 1 })
    }
    await applyCountChanges(tx, changes)
    return rows
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

function emptyRows(size: number): UpsertedRows {
  return { ids: new Array<number>(size), statuses: new Array<number>(size), inserted: new Array<boolean>(size).fill(false), added: 0 }
}

interface UpsertedRow {
  id: number
  email: string
  status: number
  inserted: boolean
}

/** Both PostgreSQL paths: variables merged (new values win), a given phone replaces, the status is kept. */
const ON_CONFLICT = sql`on conflict (address_book_id, email) do update set
      variables = (contacts.variables::jsonb || excluded.variables::jsonb)::text,
      phone = coalesce(excluded.phone, contacts.phone),
      updated_at = excluded.updated_at
    returning id, email, status, (xmax = 0) as inserted`

function rowsAtPositions(emails: readonly string[], upserted: readonly UpsertedRow[]): UpsertedRows {
  const positionOf = new Map(emails.map((email, i) => [email, i]))
  const rows = emptyRows(emails.length)
  for (const r of upserted) {
    const i = positionOf.get(r.email)!
    rows.ids[i] = Number(r.id)
    rows.statuses[i] = r.status
    rows.inserted[i] = r.inserted
    if (r.inserted) rows.added++
  }
  return rows
}

// The batch is copied into a temporary table (COPY is PostgreSQL's fastest way in: no parameters to parse, no
// array literals), then moved into contacts by one upsert; `xmax = 0` is true only for rows it inserted. The
// table lives as long as the connection and is emptied at every commit (and here, in case a transaction
// copies twice); creating it when it exists costs a notice.
const STAGING = sql.raw(`create temp table if not exists contact_staging (position integer not null, email text not null, phone text, variables text not null)
  on commit delete rows; delete from contact_staging`)
const COPY_STAGING = 'copy contact_staging (position, email, phone, variables) from stdin'

async function upsertOnPostgres(db: Kysely<Database>, batch: UpsertBatch): Promise<UpsertedRows> {
  const { emails, phones, variables } = batch.contacts
  await STAGING.execute(db)
  let text = ''
  for (let i = 0; i < emails.length; i++) text += copyRow([i, emails[i]!, phones[i]!, variables[i]!])
  await copyFrom(db, COPY_STAGING, text)
  // In the order given, so that ids follow it as they do on SQLite (pages list contacts by id).
  const { rows: upserted } = await sql<UpsertedRow>`
    insert into contacts (account_id, address_book_id, email, status, phone, variables, source, created_at, updated_at)
    select ${batch.accountId}, ${batch.bookId}, s.email, ${batch.status}, s.phone, s.variables, ${batch.source}, ${batch.now}, ${batch.now}
    from contact_staging s order by s.position
    ${ON_CONFLICT}`.execute(db)
  return rowsAtPositions(emails, upserted)
}

// A small batch goes in as three array parameters of one statement: no staging table to create, fill and
// truncate at commit, one round trip instead of three. Its text never changes: a named prepared statement,
// planned once per connection. The arrays cost more to send and parse than COPY text as batches grow, hence
// upsertPaths.plainMax.
const plainUpsert = compiledOnce<UpsertedRow>(
  (_db, [accountId, bookId, status, source, createdAt, updatedAt, emails, phones, variables]) => sql`
    insert into contacts (account_id, address_book_id, email, status, phone, variables, source, created_at, updated_at)
    select ${accountId}, ${bookId}, s.email, ${status}, s.phone, s.variables, ${source}, ${createdAt}, ${updatedAt}
    from unnest(${emails}::text[], ${phones}::text[], ${variables}::text[]) with ordinality as s(email, phone, variables, position)
    order by s.position
    ${ON_CONFLICT}`,
  { named: true },
)

async function upsertOnPostgresPlain(db: Kysely<Database>, batch: UpsertBatch): Promise<UpsertedRows> {
  const { emails, phones, variables } = batch.contacts
  const { accountId, bookId, status, source, now } = batch
  const { rows: upserted } = await plainUpsert(db, [accountId, bookId, status, source, now, now, emails, phones, variables])
  return rowsAtPositions(emails, upserted)
}

// SQLite has no xmax. New rows come from an INSERT that skips existing addresses, one prepared statement run
// per row on the raw handle inside the open transaction (2.5 times faster than a 1,000-row INSERT built by
// Kysely: docs/benchmarks.md); the addresses it skipped are then updated in one statement per chunk. The
// batch's own values are written into the statement (numbers, and a source from a fixed list), so each run
// binds 3 values instead of 9: 4 % less CPU per row, measured on 300,000 rows.
function insertNew(sqlite: SQLite.Database, batch: UpsertBatch): SQLite.Statement {
  const constants = [batch.accountId, batch.bookId, batch.status, batch.now]
  if (!constants.every(Number.isSafeInteger) || !SOURCES.has(batch.source)) throw new Error(`not a batch of contacts: ${JSON.stringify(constants)} ${batch.source}`)
  return sqlite.prepare(`insert into contacts (account_id, address_book_id, email, status, phone, variables, source, created_at, updated_at)
    values (${batch.accountId}, ${batch.bookId}, ?, ${batch.status}, ?, ?, '${batch.source}', ${batch.now}, ${batch.now})
    on conflict (address_book_id, email) do nothing`)
}
const SOURCES = new Set(['api', 'import'])

async function upsertOnSqlite(db: Kysely<Database>, batch: UpsertBatch, sqlite: SQLite.Database): Promise<UpsertedRows> {
  const { emails, phones, variables } = batch.contacts
  const rows = emptyRows(emails.length)
  const insert = insertNew(sqlite, batch)
  const skipped: number[] = []
  for (let i = 0; i < emails.length; i++) {
    // No RETURNING: it made each run twice as slow; `changes` says whether the row was new, and its id.
    const done = insert.run(emails[i], phones[i], variables[i])
    if (done.changes === 1) {
      rows.ids[i] = Number(done.lastInsertRowid)
      rows.statuses[i] = batch.status
      rows.inserted[i] = true
      rows.added++
    } else {
      skipped.push(i)
    }
  }
  for (let start = 0; start < skipped.length; start += SQLITE_CHUNK) {
    await updateExistingOnSqlite(db, batch, skipped.slice(start, start + SQLITE_CHUNK), rows)
  }
  return rows
}

/** Merges variables and sets phones of contacts already in the list, in one UPDATE … FROM (VALUES …). */
async function updateExistingOnSqlite(db: Kysely<Database>, batch: UpsertBatch, positions: number[], rows: UpsertedRows): Promise<void> {
  const { emails, phones, variables } = batch.contacts
  const values = sql.join(positions.map((i) => sql`(${emails[i]}, ${variables[i]}, ${phones[i]})`))
  const { rows: updated } = await sql<{ id: number; email: string; status: number }>`
    update contacts set
      variables = json_patch(contacts.variables, given.column2),
      phone = coalesce(given.column3, contacts.phone),
      updated_at = ${batch.now}
    from (values ${values}) as given
    where contacts.address_book_id = ${batch.bookId} and contacts.email = given.column1
    returning contacts.id, contacts.email, contacts.status`.execute(db)
  const positionOf = new Map(positions.map((i) => [emails[i]!, i]))
  for (const r of updated) {
    const i = positionOf.get(r.email)!
    rows.ids[i] = Number(r.id)
    rows.statuses[i] = r.status
  }
}
