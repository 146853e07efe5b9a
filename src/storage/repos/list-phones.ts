// The numbers of mailing lists (API.md 4.11), apart from the lists' email contacts. Every function is given
// the account as well as the list and matches both, so a list id of another account reaches nothing.
import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely'
import type SQLite from 'better-sqlite3'
import type { PhoneBlacklist } from './sms-blacklist.js'
import type { Database, ListPhonesTable } from '../tables.js'
import { isPostgres } from '../dialect.js'
import { sqliteHandleOf } from '../db.js'
import { CONTACT_STATUS } from './contacts.js'

/** Numbers per statement of the other functions: far below SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const CHUNK = 1000
/** Numbers per INSERT on PostgreSQL, where they travel as three array parameters: an import batch in one. */
const POSTGRES_CHUNK = 10_000

export interface ListNumber {
  phone: string
  status: number
  /** JSON object of variable name → value */
  variables: string
  createdAt: number
}

export interface NewNumber {
  phone: string
  status: number
  /** JSON object of variable name → value */
  variables: string
}

export interface VariablesChange {
  phone: string
  /** A JSON merge patch (RFC 7396) of the stored variables: a null value removes the variable. */
  patch: string
}

export interface NumberCounts {
  /** Status New (0), not blacklisted */
  new: number
  /** Status Active (1), not blacklisted */
  active: number
  /** Every other number: other statuses, and blacklisted numbers of any status */
  excluded: number
}

type Scope = { accountId: number; bookId: number }

/** The active numbers of a list that the account has not blacklisted (for SMS, or for Viber), with their variables, in id order. */
export async function sendableNumbersOf(db: Kysely<Database>, accountId: number, bookId: number, blacklist: PhoneBlacklist = 'sms_blacklist'): Promise<{ phone: string; variables: string }[]> {
  return db
    .selectFrom('list_phones as p')
    .select(['p.phone', 'p.variables'])
    .where('p.address_book_id', '=', bookId)
    .where('p.status', '=', CONTACT_STATUS.active)
    // Both blacklists have the account_id and phone this reads: typed as the SMS one.
    .where((eb) => eb.not(eb.exists(eb.selectFrom(`${blacklist} as b` as 'sms_blacklist as b').select('b.phone').where('b.account_id', '=', accountId).whereRef('b.phone', '=', 'p.phone'))))
    .orderBy('p.id')
    .execute()
}

/** How many numbers a list has, whatever their status. */
export async function countNumbersOf(db: Kysely<Database>, bookId: number): Promise<number> {
  const row = await db.selectFrom('list_phones').select((eb) => eb.fn.countAll<number>().as('n')).where('address_book_id', '=', bookId).executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * Adds the numbers the list does not have yet (`numbers` must not repeat one); returns those it added. Imports
 * call this with 5,000 numbers a batch, so each database gets its fast path: one statement whose columns travel
 * as arrays on PostgreSQL, one prepared statement run per row on SQLite (as contact-upserts.ts does). Measured on
 * 200,000 contacts with phones in batches of 5,000: adding their numbers makes the import 25% slower on SQLite
 * and 15% on PostgreSQL this way, against 30% and 26% with 1,000-row INSERTs built by Kysely.
 */
export async function insertNewNumbers(db: Kysely<Database>, scope: Scope & { now: number; numbers: readonly NewNumber[] }): Promise<Set<string>> {
  if (scope.numbers.length === 0) return new Set()
  return isPostgres(db) ? insertOnPostgres(db, scope) : insertOnSqlite(sqliteHandleOf(db), scope)
}

async function insertOnPostgres(db: Kysely<Database>, scope: Scope & { now: number; numbers: readonly NewNumber[] }): Promise<Set<string>> {
  const added = new Set<string>()
  for (let start = 0; start < scope.numbers.length; start += POSTGRES_CHUNK) {
    const chunk = scope.numbers.slice(start, start + POSTGRES_CHUNK)
    const { rows } = await sql<{ phone: string }>`
      insert into list_phones (account_id, address_book_id, phone, status, variables, created_at, updated_at)
      select ${scope.accountId}, ${scope.bookId}, t.phone, t.status, t.variables, ${scope.now}, ${scope.now}
      from unnest(${chunk.map((n) => n.phone)}::text[], ${chunk.map((n) => n.status)}::int[], ${chunk.map((n) => n.variables)}::text[]) as t(phone, status, variables)
      on conflict (address_book_id, phone) do nothing
      returning phone`.execute(db)
    for (const row of rows) added.add(row.phone)
  }
  return added
}

function insertOnSqlite(sqlite: SQLite.Database, scope: Scope & { now: number; numbers: readonly NewNumber[] }): Set<string> {
  const insert = sqlite.prepare(
    `insert into list_phones (account_id, address_book_id, phone, status, variables, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?) on conflict (address_book_id, phone) do nothing`,
  )
  const added = new Set<string>()
  for (const n of scope.numbers) {
    if (insert.run(scope.accountId, scope.bookId, n.phone, n.status, n.variables, scope.now, scope.now).changes === 1) added.add(n.phone)
  }
  return added
}

/** Merges variables into numbers of the list, each with its own patch; returns how many numbers changed. */
export async function mergeVariables(db: Kysely<Database>, scope: Scope & { now: number; changes: readonly VariablesChange[] }): Promise<number> {
  let changed = 0
  for (let start = 0; start < scope.changes.length; start += CHUNK) {
    const chunk = scope.changes.slice(start, start + CHUNK)
    const result = await (isPostgres(db) ? mergeOnPostgres : mergeOnSqlite)(db, scope, chunk)
    changed += Number(result.numAffectedRows ?? 0)
  }
  return changed
}

// A merge patch keeps the stored values it does not name: PostgreSQL's `||` is that for flat objects, and
// jsonb_strip_nulls then drops what the patch removed (no stored value is ever null). `phone = any(…)` lets the
// planner find the rows through an index even before the table has statistics (a list being imported): with
// the join alone it hashed the whole list for every chunk, and a re-import of 200,000 numbers took 26 s, not 8.
function mergeOnPostgres(db: Kysely<Database>, scope: Scope & { now: number }, chunk: readonly VariablesChange[]) {
  const phones = chunk.map((c) => c.phone)
  return sql`
    update list_phones set variables = jsonb_strip_nulls(list_phones.variables::jsonb || given.patch::jsonb)::text, updated_at = ${scope.now}
    from unnest(${phones}::text[], ${chunk.map((c) => c.patch)}::text[]) as given(phone, patch)
    where list_phones.account_id = ${scope.accountId} and list_phones.address_book_id = ${scope.bookId}
      and list_phones.phone = any(${phones}::text[]) and list_phones.phone = given.phone`.execute(db)
}

function mergeOnSqlite(db: Kysely<Database>, scope: Scope & { now: number }, chunk: readonly VariablesChange[]) {
  const values = sql.join(chunk.map((c) => sql`(${c.phone}, ${c.patch})`))
  return sql`
    update list_phones set variables = json_patch(list_phones.variables, given.column2), updated_at = ${scope.now}
    from (values ${values}) as given
    where list_phones.account_id = ${scope.accountId} and list_phones.address_book_id = ${scope.bookId} and list_phones.phone = given.column1`.execute(db)
}

/** Removes numbers from the list; returns how many it had. */
export async function deleteNumbers(db: Kysely<Database>, scope: Scope & { phones: readonly string[] }): Promise<number> {
  let deleted = 0
  for (let start = 0; start < scope.phones.length; start += CHUNK) {
    const result = await db
      .deleteFrom('list_phones')
      .where('account_id', '=', scope.accountId)
      .where('address_book_id', '=', scope.bookId)
      .where('phone', 'in', scope.phones.slice(start, start + CHUNK))
      .executeTakeFirst()
    deleted += Number(result.numDeletedRows)
  }
  return deleted
}

export async function findNumber(db: Kysely<Database>, scope: Scope & { phone: string }): Promise<ListNumber | undefined> {
  const row = await db
    .selectFrom('list_phones')
    .selectAll()
    .where('account_id', '=', scope.accountId)
    .where('address_book_id', '=', scope.bookId)
    .where('phone', '=', scope.phone)
    .executeTakeFirst()
  return row && toNumber(row)
}

/**
 * Numbers in status `from` become `to`: those of one list or of every list of the account, and only `phones`
 * when given. Returns how many changed.
 */
export async function changeNumberStatus(
  db: Kysely<Database>,
  change: { accountId: number; bookId?: number; phones?: readonly string[]; from: number; to: number; now: number },
): Promise<number> {
  if (change.phones?.length === 0) return 0
  let query = db.updateTable('list_phones').set({ status: change.to, updated_at: change.now }).where('account_id', '=', change.accountId).where('status', '=', change.from)
  if (change.bookId !== undefined) query = query.where('address_book_id', '=', change.bookId)
  if (change.phones) query = query.where('phone', 'in', [...change.phones])
  const result = await query.executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/**
 * A list record's number counts as columns of a query on `address_books`, one scalar subquery each, so the record
 * and its counts are one statement. They read indexes only: list_phones_book_status for the counts by status, and
 * the unique (list, phone) index probed with each number the account blacklisted, so that part costs what the
 * blacklist's size does, not the list's. numberCountsOf turns them into the counts SendPulse shows.
 */
export function numberCountColumns(eb: ExpressionBuilder<Database, 'address_books'>) {
  const numbersOfBook = () => eb.selectFrom('list_phones as p').whereRef('p.address_book_id', '=', 'address_books.id')
  const withStatus = (status: number) => numbersOfBook().select((e) => e.fn.countAll<number>().as('n')).where('p.status', '=', status)
  const blacklist = () => eb.selectFrom('sms_blacklist as b').select('b.phone').whereRef('b.account_id', '=', 'address_books.account_id')
  // A sum over the blacklisted numbers rather than a `status =` condition: that would pick the status index and
  // test every number of that status against the blacklist. Asked only when the account blacklisted anyone:
  // most have not, and the two probes were a third of the statement's time (5 of 14 µs on SQLite).
  const blacklistedWith = (status: number) =>
    eb
      .case()
      .when(eb.exists(blacklist()))
      .then(numbersOfBook().select((e) => e.fn.sum<number>(e.case().when('p.status', '=', status).then(1).else(0).end()).as('n')).where('p.phone', 'in', blacklist()))
      .else(0)
      .end()
  return [
    numbersOfBook().select((e) => e.fn.countAll<number>().as('n')).as('numbers_all'),
    withStatus(CONTACT_STATUS.new).as('numbers_new'),
    withStatus(CONTACT_STATUS.active).as('numbers_active'),
    blacklistedWith(CONTACT_STATUS.new).as('blacklisted_new'),
    blacklistedWith(CONTACT_STATUS.active).as('blacklisted_active'),
  ] as const
}

/**
 * numberCountColumns's counts of one list as two one-row tables to join to its record: every number and those New
 * and Active in one pass over the list, then those of them the account blacklisted. PostgreSQL runs this in half
 * the time of the correlated form, whose start-up prepares every subquery, run or not (0.05 against 0.1 ms);
 * SQLite runs the correlated form faster (6 against 10 µs).
 */
export function numberCountTables(db: Kysely<Database>, bookId: number, accountId: number) {
  const byStatus = (e: ExpressionBuilder<Database, 'list_phones'>, status: number) => e.fn.sum<number>(e.case().when('status', '=', status).then(1).else(0).end())
  const numbers = db
    .selectFrom('list_phones')
    .select((e) => [e.fn.countAll<number>().as('numbers_all'), byStatus(e, CONTACT_STATUS.new).as('numbers_new'), byStatus(e, CONTACT_STATUS.active).as('numbers_active')])
    .where('address_book_id', '=', bookId)
  const blacklisted = db
    .selectFrom('list_phones')
    .select((e) => [byStatus(e, CONTACT_STATUS.new).as('blacklisted_new'), byStatus(e, CONTACT_STATUS.active).as('blacklisted_active')])
    .where('address_book_id', '=', bookId)
    .where('phone', 'in', (e) => e.selectFrom('sms_blacklist').select('phone').where('account_id', '=', accountId))
  return { numbers: numbers.as('numbers'), blacklisted: blacklisted.as('blacklisted') }
}

/** Blacklisted numbers of New or Active count as excluded, as SendPulse shows them. */
export function numberCountsOf(row: { numbers_all: unknown; numbers_new: unknown; numbers_active: unknown; blacklisted_new: unknown; blacklisted_active: unknown }): NumberCounts {
  const counts = {
    new: Number(row.numbers_new) - Number(row.blacklisted_new ?? 0),
    active: Number(row.numbers_active) - Number(row.blacklisted_active ?? 0),
  }
  return { ...counts, excluded: Number(row.numbers_all) - counts.new - counts.active }
}

function toNumber(row: Selectable<ListPhonesTable>): ListNumber {
  return { phone: row.phone, status: row.status, variables: row.variables, createdAt: Number(row.created_at) }
}
