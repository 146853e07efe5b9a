// The numbers of mailing lists (API.md 4.11), apart from the lists' email contacts. Every function is given
// the account as well as the list and matches both, so a list id of another account reaches nothing.
import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, ListPhonesTable } from '../tables.js'
import { isPostgres } from '../dialect.js'
import { CONTACT_STATUS } from './contacts.js'

/** Numbers per statement: 6 parameters a row stays far below SQLite's 32,766 and PostgreSQL's 65,535. */
const CHUNK = 1000

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

export const ZERO_NUMBER_COUNTS: NumberCounts = Object.freeze({ new: 0, active: 0, excluded: 0 })

type Scope = { accountId: number; bookId: number }

/** The active numbers of a list that the account has not blacklisted, with their variables, in id order. */
export async function sendableNumbersOf(db: Kysely<Database>, accountId: number, bookId: number): Promise<{ phone: string; variables: string }[]> {
  return db
    .selectFrom('list_phones as p')
    .select(['p.phone', 'p.variables'])
    .where('p.address_book_id', '=', bookId)
    .where('p.status', '=', CONTACT_STATUS.active)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('sms_blacklist as b').select('b.phone').where('b.account_id', '=', accountId).whereRef('b.phone', '=', 'p.phone'))))
    .orderBy('p.id')
    .execute()
}

/** How many numbers a list has, whatever their status. */
export async function countNumbersOf(db: Kysely<Database>, bookId: number): Promise<number> {
  const row = await db.selectFrom('list_phones').select((eb) => eb.fn.countAll<number>().as('n')).where('address_book_id', '=', bookId).executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Adds the numbers the list does not have yet (`numbers` must not repeat one); returns those it added. */
export async function insertNewNumbers(db: Kysely<Database>, scope: Scope & { now: number; numbers: readonly NewNumber[] }): Promise<Set<string>> {
  const added = new Set<string>()
  for (let start = 0; start < scope.numbers.length; start += CHUNK) {
    const rows = await db
      .insertInto('list_phones')
      .values(
        scope.numbers.slice(start, start + CHUNK).map((n) => ({
          account_id: scope.accountId,
          address_book_id: scope.bookId,
          phone: n.phone,
          status: n.status,
          variables: n.variables,
          created_at: scope.now,
          updated_at: scope.now,
        })),
      )
      .onConflict((oc) => oc.columns(['address_book_id', 'phone']).doNothing())
      .returning('phone')
      .execute()
    for (const row of rows) added.add(row.phone)
  }
  return added
}

/** Merges variables into numbers of the list, each with its own patch; returns how many numbers changed. */
export async function mergeVariables(db: Kysely<Database>, scope: Scope & { now: number; changes: readonly VariablesChange[] }): Promise<number> {
  // A merge patch keeps the stored values it does not name; PostgreSQL's `||` is that for flat objects, and
  // jsonb_strip_nulls then drops what the patch removed (no stored value is ever null).
  const merged = isPostgres(db) ? sql`jsonb_strip_nulls(list_phones.variables::jsonb || given.column2::jsonb)::text` : sql`json_patch(list_phones.variables, given.column2)`
  let changed = 0
  for (let start = 0; start < scope.changes.length; start += CHUNK) {
    const values = sql.join(scope.changes.slice(start, start + CHUNK).map((c) => sql`(${c.phone}, ${c.patch})`))
    const result = await sql`
      update list_phones set variables = ${merged}, updated_at = ${scope.now}
      from (values ${values}) as given
      where list_phones.account_id = ${scope.accountId} and list_phones.address_book_id = ${scope.bookId} and list_phones.phone = given.column1`.execute(db)
    changed += Number(result.numAffectedRows ?? 0)
  }
  return changed
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

/** Which of `phones` the list has. */
export async function findExistingNumbers(db: Kysely<Database>, scope: Scope & { phones: readonly string[] }): Promise<Set<string>> {
  const found = new Set<string>()
  for (let start = 0; start < scope.phones.length; start += CHUNK) {
    const rows = await db
      .selectFrom('list_phones')
      .select('phone')
      .where('account_id', '=', scope.accountId)
      .where('address_book_id', '=', scope.bookId)
      .where('phone', 'in', scope.phones.slice(start, start + CHUNK))
      .execute()
    for (const row of rows) found.add(row.phone)
  }
  return found
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
 * The number counts of the account's lists. Both queries read indexes only: list_phones_book_status for the
 * counts by status, and, when the account blacklisted anyone, the unique (list, phone) index probed with each
 * blacklisted number, so the cost follows the blacklist's size rather than the lists'.
 */
export async function countNumbersByBook(db: Kysely<Database>, accountId: number, bookIds: readonly number[]): Promise<Map<number, NumberCounts>> {
  const counts = new Map<number, NumberCounts>()
  if (bookIds.length === 0) return counts
  const byStatus = await db
    .selectFrom('list_phones')
    .select(['address_book_id', 'status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('address_book_id', 'in', [...bookIds])
    .groupBy(['address_book_id', 'status'])
    .execute()
  const blacklisted = (await hasBlacklist(db, accountId)) ? await countBlacklistedByBook(db, accountId, bookIds) : []
  const add = (bookId: number, status: number, n: number) => {
    let c = counts.get(bookId)
    if (!c) counts.set(bookId, (c = { ...ZERO_NUMBER_COUNTS }))
    if (status === CONTACT_STATUS.new) c.new += n
    else if (status === CONTACT_STATUS.active) c.active += n
    else c.excluded += n
  }
  for (const r of byStatus) add(Number(r.address_book_id), r.status, Number(r.n))
  // Blacklisted numbers of New or Active move to the excluded count.
  for (const r of blacklisted) {
    if (r.status === CONTACT_STATUS.new || r.status === CONTACT_STATUS.active) {
      add(r.bookId, r.status, -r.n)
      add(r.bookId, -1, r.n)
    }
  }
  return counts
}

async function hasBlacklist(db: Kysely<Database>, accountId: number): Promise<boolean> {
  return (await db.selectFrom('sms_blacklist').select('phone').where('account_id', '=', accountId).limit(1).executeTakeFirst()) !== undefined
}

async function countBlacklistedByBook(db: Kysely<Database>, accountId: number, bookIds: readonly number[]): Promise<{ bookId: number; status: number; n: number }[]> {
  const rows = await db
    .selectFrom('list_phones')
    .select(['address_book_id', 'status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('address_book_id', 'in', [...bookIds])
    .where('phone', 'in', (eb) => eb.selectFrom('sms_blacklist').select('phone').where('account_id', '=', accountId))
    .groupBy(['address_book_id', 'status'])
    .execute()
  return rows.map((r) => ({ bookId: Number(r.address_book_id), status: r.status, n: Number(r.n) }))
}

function toNumber(row: Selectable<ListPhonesTable>): ListNumber {
  return { phone: row.phone, status: row.status, variables: row.variables, createdAt: Number(row.created_at) }
}
