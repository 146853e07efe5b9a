// Contacts of mailing lists: bulk upserts, pages, look-ups by address, status changes. Every function that
// adds, removes or changes the status or phone of contacts also updates contact_counts, in one transaction.
import { sql, type Kysely, type Selectable } from 'kysely'
import type SQLite from 'better-sqlite3'
import type { ContactsTable, Database } from '../tables.js'
import { isPostgres } from '../migrations/helpers.js'
import type { Page } from '../../services/types.js'
import { applyCountChanges, type CountChange } from './contact-counts.js'

/** API.md 3.2 codes the service sets itself. */
export const CONTACT_STATUS = { new: 0, active: 1, confirmationRequested: 2, unsubscribed: 4 } as const

export interface ContactRow {
  id: number
  accountId: number
  bookId: number
  email: string
  status: number
  phone: string | null
  /** JSON object of variable name → value */
  variables: string
  source: string
  createdAt: number
}

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
/** Addresses per `in (…)` list. */
const LOOKUP_CHUNK = 500

/**
 * Adds contacts to a list, or updates the ones already there: their variables are merged (new values win),
 * a given phone replaces the stored one, the status is kept. Returns every row with whether it is new.
 * `contacts` must not repeat an address.
 */
export async function upsertContacts(
  db: Kysely<Database>,
  batch: { accountId: number; bookId: number; status: number; source: string; now: number; contacts: ContactInput[] },
  /** On SQLite: the handle behind `db` (storage/db.ts sqliteHandleOf), for the fast insert path. */
  sqlite?: SQLite.Database,
): Promise<UpsertResult[]> {
  if (batch.contacts.length === 0) return []
  return inTransaction(db, async (tx) => {
    // Contacts already in the list that get their first phone move to the with-phone count.
    const phoned = batch.contacts.filter((c) => c.phone !== null).map((c) => c.email)
    const gainingPhone = await lockPhoneless(tx, batch.bookId, phoned)
    const results = isPostgres(tx as Kysely<unknown>) ? await upsertOnPostgres(tx, batch) : await upsertOnSqlite(tx, batch, sqlite)
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

/** Runs `work` in the caller's transaction, or in a new one: a contact change and its counts go together. */
function inTransaction<T>(db: Kysely<Database>, work: (tx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work)
}

/** Rows about to change, with what they are counted under; locked on PostgreSQL until the transaction ends. */
function forChange<Q extends { forUpdate(): Q }>(db: Kysely<Database>, query: Q): Q {
  return isPostgres(db as Kysely<unknown>) ? query.forUpdate() : query
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

/** The count changes of rows leaving their (list, status, phone) group: -1 each, or +1 when `sign` is 1. */
function countsOf(rows: readonly { address_book_id: number; status: number; phone: string | null }[], sign: 1 | -1, status?: number): CountChange[] {
  return rows.map((r) => ({ bookId: Number(r.address_book_id), status: status ?? r.status, withPhone: r.phone !== null, delta: sign }))
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
  sqlite: SQLite.Database | undefined,
): Promise<UpsertResult[]> {
  const results: UpsertResult[] = []
  for (let start = 0; start < batch.contacts.length; start += SQLITE_CHUNK) {
    const chunk = batch.contacts.slice(start, start + SQLITE_CHUNK)
    const inserted = sqlite ? insertNewOnSqlite(sqlite, batch, chunk) : await insertNewWithKysely(db, batch, chunk)
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

async function insertNewWithKysely(db: Kysely<Database>, batch: Batch, chunk: ContactInput[]): Promise<NewRow[]> {
  const rows = await db
    .insertInto('contacts')
    .values(chunk.map((c) => ({
      account_id: batch.accountId,
      address_book_id: batch.bookId,
      email: c.email,
      status: batch.status,
      phone: c.phone,
      variables: c.variables,
      source: batch.source,
      created_at: batch.now,
      updated_at: batch.now,
    })))
    .onConflict((oc) => oc.columns(['address_book_id', 'email']).doNothing())
    .returning(['id', 'email', 'status'])
    .execute()
  return rows.map((r) => ({ id: Number(r.id), email: r.email, status: r.status }))
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

/** The contacts of one list with these addresses. */
export async function findContactsInBook(db: Kysely<Database>, bookId: number, emails: string[]): Promise<ContactRow[]> {
  const out: ContactRow[] = []
  for (let start = 0; start < emails.length; start += LOOKUP_CHUNK) {
    const rows = await db
      .selectFrom('contacts')
      .selectAll()
      .where('address_book_id', '=', bookId)
      .where('email', 'in', emails.slice(start, start + LOOKUP_CHUNK))
      .execute()
    out.push(...rows.map(toContact))
  }
  return out
}

export async function findContact(db: Kysely<Database>, bookId: number, email: string): Promise<ContactRow | undefined> {
  const row = await db.selectFrom('contacts').selectAll().where('address_book_id', '=', bookId).where('email', '=', email).executeTakeFirst()
  return row && toContact(row)
}

export async function findContactById(db: Kysely<Database>, id: number): Promise<ContactRow | undefined> {
  const row = await db.selectFrom('contacts').selectAll().where('id', '=', id).executeTakeFirst()
  return row && toContact(row)
}

export interface ContactFilter {
  bookId: number
  /** Only these statuses (e.g. Active and New); all when absent. */
  statuses?: readonly number[]
  /** Every status except these. */
  excludedStatuses?: readonly number[]
  order: 'asc' | 'desc'
}

/**
 * One page of a list's contacts in the order they were added: by `offset`, or, when the caller knows the
 * id the page starts after (ascending order only), by keyset, which costs the same at any depth.
 */
export async function listContacts(db: Kysely<Database>, filter: ContactFilter, page: Page & { afterId?: number }): Promise<ContactRow[]> {
  let ids = db.selectFrom('contacts').select('id').where('address_book_id', '=', filter.bookId)
  if (filter.statuses) ids = ids.where('status', 'in', [...filter.statuses])
  if (filter.excludedStatuses) ids = ids.where('status', 'not in', [...filter.excludedStatuses])
  ids = page.afterId === undefined ? ids.offset(page.offset) : ids.where('id', '>', page.afterId)
  ids = ids.orderBy('id', filter.order).limit(page.limit)
  // The rows skipped by an offset are walked in the (address_book_id, id) index alone; only the page's rows
  // are read from the table (PostgreSQL at offset 999,900: 214 → 58 ms; SQLite 47 → 31 ms).
  const rows = await db.selectFrom('contacts').selectAll().where('id', 'in', ids).orderBy('id', filter.order).execute()
  return rows.map(toContact)
}

/** Contacts of a list whose variable `name` has `value` (compared as text: `25` finds the number 25). */
export async function findContactsByVariable(
  db: Kysely<Database>,
  search: { bookId: number; name: string; value: string },
  page: Page,
): Promise<ContactRow[]> {
  const field = isPostgres(db as Kysely<unknown>)
    ? sql<string>`(variables::jsonb ->> ${search.name})`
    : sql<string>`cast(json_extract(variables, ${jsonPath(search.name)}) as text)`
  const rows = await db
    .selectFrom('contacts')
    .selectAll()
    .where('address_book_id', '=', search.bookId)
    .where(field, '=', search.value)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute()
  return rows.map(toContact)
}

/** A JSON path naming one key, whatever characters it holds (SQLite's `$."key"` form). */
function jsonPath(key: string): string {
  return `$."${key.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
}

export async function deleteContacts(db: Kysely<Database>, bookId: number, emails: string[]): Promise<number> {
  if (emails.length === 0) return 0
  return inTransaction(db, async (tx) => {
    const gone = await tx
      .deleteFrom('contacts')
      .where('address_book_id', '=', bookId)
      .where('email', 'in', emails)
      .returning(['address_book_id', 'status', 'phone'])
      .execute()
    await applyCountChanges(tx, countsOf(gone, -1))
    return gone.length
  })
}

/** Sets the status of these addresses in a list; returns how many changed. */
export async function setContactStatus(
  db: Kysely<Database>,
  change: { bookId: number; emails: string[]; status: number; now: number; onlyFrom?: readonly number[] },
): Promise<number> {
  if (change.emails.length === 0) return 0
  return inTransaction(db, async (tx) => {
    let query = tx
      .selectFrom('contacts')
      .select(['id', 'address_book_id', 'status', 'phone'])
      .where('address_book_id', '=', change.bookId)
      .where('email', 'in', change.emails)
      .where('status', '<>', change.status)
    if (change.onlyFrom) query = query.where('status', 'in', [...change.onlyFrom])
    const rows = await forChange(tx, query).execute()
    if (rows.length === 0) return 0
    await tx.updateTable('contacts').set({ status: change.status, updated_at: change.now }).where('id', 'in', rows.map((r) => r.id)).execute()
    await applyCountChanges(tx, [...countsOf(rows, -1), ...countsOf(rows, 1, change.status)])
    return rows.length
  })
}

/** Activates a contact awaiting confirmation (status 2 → 1); false when it is not awaiting it. */
export async function confirmContact(db: Kysely<Database>, id: number, now: number): Promise<boolean> {
  return inTransaction(db, async (tx) => {
    const rows = await tx
      .updateTable('contacts')
      .set({ status: CONTACT_STATUS.active, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', CONTACT_STATUS.confirmationRequested)
      .returning(['address_book_id', 'status', 'phone'])
      .execute()
    await applyCountChanges(tx, [...countsOf(rows, -1, CONTACT_STATUS.confirmationRequested), ...countsOf(rows, 1)])
    return rows.length > 0
  })
}

/** New contacts (status 0) of an account, or of one of its lists, become Active; returns how many. */
export async function activateNewContacts(db: Kysely<Database>, scope: { accountId: number; bookId?: number; emails?: string[] }, now: number): Promise<number> {
  return inTransaction(db, async (tx) => {
    let query = tx
      .updateTable('contacts')
      .set({ status: CONTACT_STATUS.active, updated_at: now })
      .where('account_id', '=', scope.accountId)
      .where('status', '=', CONTACT_STATUS.new)
    if (scope.bookId !== undefined) query = query.where('address_book_id', '=', scope.bookId)
    if (scope.emails) query = query.where('email', 'in', scope.emails)
    const rows = await query.returning(['address_book_id', 'status', 'phone']).execute()
    await applyCountChanges(tx, [...countsOf(rows, -1, CONTACT_STATUS.new), ...countsOf(rows, 1)])
    return rows.length
  })
}

export async function replaceVariables(db: Kysely<Database>, id: number, variables: string, now: number): Promise<void> {
  await db.updateTable('contacts').set({ variables, updated_at: now }).where('id', '=', id).execute()
}

export async function setPhone(db: Kysely<Database>, id: number, phone: string, now: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    const before = await forChange(tx, tx.selectFrom('contacts').select(['address_book_id', 'status', 'phone']).where('id', '=', id)).execute()
    await tx.updateTable('contacts').set({ phone, updated_at: now }).where('id', '=', id).execute()
    const gaining = before.filter((r) => r.phone === null)
    await applyCountChanges(tx, [...countsOf(gaining, -1), ...countsOf(gaining.map((r) => ({ ...r, phone })), 1)])
  })
}

export interface ContactInBook extends ContactRow {
  bookName: string
  /** The declared variable types of the contact's list. */
  variableTypes: Map<string, string>
}

/**
 * The account's contacts with these addresses in lists that are not deleted, with the list names and
 * variable types, in one query (one row per contact and variable of its list).
 */
export async function findAccountContacts(db: Kysely<Database>, accountId: number, emails: string[]): Promise<ContactInBook[]> {
  const out: ContactInBook[] = []
  for (let start = 0; start < emails.length; start += LOOKUP_CHUNK) {
    const rows = await db
      .selectFrom('contacts')
      .innerJoin('address_books', 'address_books.id', 'contacts.address_book_id')
      .leftJoin('address_book_variables as v', 'v.address_book_id', 'contacts.address_book_id')
      .selectAll('contacts')
      .select(['address_books.name as book_name', 'v.name as variable_name', 'v.type as variable_type'])
      .where('contacts.account_id', '=', accountId)
      .where('contacts.email', 'in', emails.slice(start, start + LOOKUP_CHUNK))
      .where('address_books.status', '<>', 1)
      .orderBy('contacts.address_book_id')
      .orderBy('contacts.id')
      .execute()
    let current: ContactInBook | undefined
    for (const r of rows) {
      if (current?.id !== Number(r.id)) out.push((current = { ...toContact(r), bookName: r.book_name, variableTypes: new Map() }))
      if (r.variable_name !== null && r.variable_type !== null) current.variableTypes.set(r.variable_name, r.variable_type)
    }
  }
  return out
}

/** Removes an address from every list of the account; returns how many contacts went. */
export async function deleteFromAccount(db: Kysely<Database>, accountId: number, email: string): Promise<number> {
  return inTransaction(db, async (tx) => {
    const gone = await tx
      .deleteFrom('contacts')
      .where('account_id', '=', accountId)
      .where('email', '=', email)
      .returning(['address_book_id', 'status', 'phone'])
      .execute()
    await applyCountChanges(tx, countsOf(gone, -1))
    return gone.length
  })
}

/** Updates the query planner's statistics of contacts after a bulk load (PostgreSQL; SQLite plans without). */
export async function refreshContactStatistics(db: Kysely<Database>): Promise<void> {
  if (isPostgres(db as Kysely<unknown>)) await sql`analyze contacts`.execute(db)
}

/** Declares variables a list does not have yet (a concurrent declaration of the same name wins). */
export async function declareVariables(db: Kysely<Database>, bookId: number, variables: { name: string; type: string }[], now: number): Promise<void> {
  if (variables.length === 0) return
  await db
    .insertInto('address_book_variables')
    .values(variables.map((v) => ({ address_book_id: bookId, name: v.name, type: v.type, created_at: now })))
    .onConflict((oc) => oc.columns(['address_book_id', 'name']).doNothing())
    .execute()
}

function toContact(row: Selectable<ContactsTable>): ContactRow {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    bookId: Number(row.address_book_id),
    email: row.email,
    status: row.status,
    phone: row.phone,
    variables: row.variables,
    source: row.source,
    createdAt: Number(row.created_at),
  }
}
