// Contacts of mailing lists: pages, look-ups by address, status changes (bulk upserts: contact-upserts.ts).
// Every function that adds, removes or changes the status or phone of contacts also updates contact_counts,
// in one transaction.
import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely'
import type { ContactsTable, Database } from '../tables.js'
import { isPostgres } from '../dialect.js'
import type { Page } from '../../services/types.js'
import { applyCountChanges, type CountChange } from './contact-counts.js'

/** API.md 3.2 codes the service sets itself. */
export const CONTACT_STATUS = {
  new: 0,
  active: 1,
  confirmationRequested: 2,
  unsubscribed: 4,
  /** Unsubscribed from all newsletters: blocked after a complaint */
  complained: 6,
  /** Sending error: a hard bounce */
  bounced: 9,
} as const

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

/** Addresses per `in (…)` list. */
export const LOOKUP_CHUNK = 500

/** Runs `work` in the caller's transaction, or in a new one: a contact change and its counts go together. */
export function inTransaction<T>(db: Kysely<Database>, work: (tx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work)
}

/** Rows about to change, with what they are counted under; locked on PostgreSQL until the transaction ends. */
export function forChange<Q extends { forUpdate(): Q }>(db: Kysely<Database>, query: Q): Q {
  return isPostgres(db) ? query.forUpdate() : query
}

/** The count changes of rows leaving their (list, status, phone) group: -1 each, or +1 when `sign` is 1. */
function countsOf(rows: readonly { address_book_id: number; status: number; phone: string | null }[], sign: 1 | -1, status?: number): CountChange[] {
  return rows.map((r) => ({ bookId: Number(r.address_book_id), status: status ?? r.status, withPhone: r.phone !== null, delta: sign }))
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
  /** Only Active and New contacts, only the others (migration 0021's partial index), or every one. */
  statuses: 'active' | 'inactive' | 'all'
  order: 'asc' | 'desc'
}

/** The "Not active" statuses, written exactly as migration 0021's partial index contacts_book_inactive says them. */
const INACTIVE_PREDICATE = sql<boolean>`status not in (0, 1)`
const ACTIVE_PREDICATE = sql<boolean>`status in (0, 1)`

/** The ids of one page of a list's contacts (exported for the test that checks which index its plan uses). */
export function contactIdsQuery(db: Kysely<Database>, filter: ContactFilter, page: Page & { afterId?: number }) {
  let ids = db.selectFrom('contacts').select('id').where('address_book_id', '=', filter.bookId)
  if (filter.statuses === 'active') ids = ids.where(ACTIVE_PREDICATE)
  if (filter.statuses === 'inactive') ids = ids.where(INACTIVE_PREDICATE)
  ids = page.afterId === undefined ? ids.offset(page.offset) : ids.where('id', '>', page.afterId)
  return ids.orderBy('id', filter.order).limit(page.limit)
}

/**
 * One page of a list's contacts in the order they were added: by `offset`, or, when the caller knows the
 * id the page starts after (ascending order only), by keyset, which costs the same at any depth.
 */
export async function listContacts(db: Kysely<Database>, filter: ContactFilter, page: Page & { afterId?: number }): Promise<ContactRow[]> {
  const ids = contactIdsQuery(db, filter, page)
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
  const field = isPostgres(db)
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

/** A contact that changed, as events describe it. */
export interface ChangedContact {
  bookId: number
  email: string
}

/** Deletes these addresses from a list; returns the contacts that were there. */
export async function deleteContacts(db: Kysely<Database>, bookId: number, emails: string[]): Promise<ChangedContact[]> {
  if (emails.length === 0) return []
  return inTransaction(db, async (tx) => {
    const gone = await tx
      .deleteFrom('contacts')
      .where('address_book_id', '=', bookId)
      .where('email', 'in', emails)
      .returning(['address_book_id', 'status', 'phone', 'email'])
      .execute()
    await applyCountChanges(tx, countsOf(gone, -1))
    return gone.map(changedOf)
  })
}

function changedOf(row: { address_book_id: number; email: string }): ChangedContact {
  return { bookId: Number(row.address_book_id), email: row.email }
}

/** Sets the status of these addresses in a list; returns the contacts that changed. */
export async function setContactStatus(
  db: Kysely<Database>,
  change: { bookId: number; emails: string[]; status: number; now: number; onlyFrom?: readonly number[] },
): Promise<ChangedContact[]> {
  if (change.emails.length === 0) return []
  return changeStatus(db, change, (query) => query.where('address_book_id', '=', change.bookId).where('email', 'in', change.emails))
}

/** Sets the status of contacts by id, only those in `onlyFrom`; returns the contacts that changed. */
export async function setStatusOfIds(db: Kysely<Database>, change: { ids: number[]; status: number; onlyFrom: readonly number[]; now: number }): Promise<ChangedContact[]> {
  if (change.ids.length === 0) return []
  return changeStatus(db, change, (query) => query.where('id', 'in', change.ids))
}

type StatusCandidates = SelectQueryBuilder<Database, 'contacts', Pick<Selectable<ContactsTable>, 'id' | 'address_book_id' | 'status' | 'phone' | 'email'>>

/** Moves the contacts `select` picks to `status` (from `onlyFrom` when given), their counts with them. */
function changeStatus(
  db: Kysely<Database>,
  change: { status: number; now: number; onlyFrom?: readonly number[] },
  select: (query: StatusCandidates) => StatusCandidates,
): Promise<ChangedContact[]> {
  return inTransaction(db, async (tx) => {
    let query = select(tx.selectFrom('contacts').select(['id', 'address_book_id', 'status', 'phone', 'email'])).where('status', '<>', change.status)
    if (change.onlyFrom) query = query.where('status', 'in', [...change.onlyFrom])
    const rows = await forChange(tx, query).execute()
    if (rows.length === 0) return []
    await tx.updateTable('contacts').set({ status: change.status, updated_at: change.now }).where('id', 'in', rows.map((r) => r.id)).execute()
    await applyCountChanges(tx, [...countsOf(rows, -1), ...countsOf(rows, 1, change.status)])
    return rows.map(changedOf)
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

/** The phones of the account's contacts with these addresses (in one list, or in any). */
export async function findPhonesOf(db: Kysely<Database>, scope: { accountId: number; bookId?: number; emails: readonly string[] }): Promise<string[]> {
  const phones = new Set<string>()
  for (let start = 0; start < scope.emails.length; start += LOOKUP_CHUNK) {
    let query = db.selectFrom('contacts').select('phone').where('account_id', '=', scope.accountId).where('email', 'in', scope.emails.slice(start, start + LOOKUP_CHUNK)).where('phone', 'is not', null)
    if (scope.bookId !== undefined) query = query.where('address_book_id', '=', scope.bookId)
    for (const row of await query.execute()) if (row.phone) phones.add(row.phone)
  }
  return [...phones]
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

/** Removes an address from every list of the account; returns the contacts that went. */
export async function deleteFromAccount(db: Kysely<Database>, accountId: number, email: string): Promise<ChangedContact[]> {
  return inTransaction(db, async (tx) => {
    const gone = await tx
      .deleteFrom('contacts')
      .where('account_id', '=', accountId)
      .where('email', '=', email)
      .returning(['address_book_id', 'status', 'phone', 'email'])
      .execute()
    await applyCountChanges(tx, countsOf(gone, -1))
    return gone.map(changedOf)
  })
}

/** Updates the query planner's statistics of contacts after a bulk load (PostgreSQL; SQLite plans without). */
export async function refreshContactStatistics(db: Kysely<Database>): Promise<void> {
  if (isPostgres(db)) await sql`analyze contacts`.execute(db)
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

export function toContact(row: Selectable<ContactsTable>): ContactRow {
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
