// Mailing lists (address books), their variables and the contact counts shown in every list record.
import type { Kysely, Selectable } from 'kysely'
import type { AddressBooksTable, Database } from '../tables.js'
import type { Page } from '../../services/types.js'
import { readCounts } from './contact-counts.js'
import { CONTACT_STATUS } from './contacts.js'
import { numberCountColumns, numberCountsOf, numberCountTables, type NumberCounts } from './list-phones.js'
import { isPostgres } from '../dialect.js'
import { prepareQuery } from '../prepared-query.js'

export const BOOK_STATUS = { active: 0, deleted: 1 } as const

export interface BookRow {
  id: number
  accountId: number
  name: string
  status: number
  createdAt: number
  /** Changes whenever contacts leave the list or change status. */
  contactsGeneration: number
}

/** Email contacts of a list (its numbers: list-phones.ts countNumbersByBook). */
export interface BookCounts {
  all: number
  active: number
}

export const ZERO_COUNTS: BookCounts = Object.freeze({ all: 0, active: 0 })

/** A list record as the API shows it: the list, its email contacts and its numbers. */
export interface BookWithCounts extends BookRow {
  counts: BookCounts
  /** Blacklisted numbers counted as excluded, as SendPulse shows them. */
  numbers: NumberCounts
}

export async function createBook(db: Kysely<Database>, book: { accountId: number; name: string; now: number }): Promise<number> {
  const row = await db
    .insertInto('address_books')
    .values({ account_id: book.accountId, name: book.name, status: BOOK_STATUS.active, created_at: book.now, updated_at: book.now })
    .returning('id')
    .executeTakeFirstOrThrow()
  return Number(row.id)
}

/** The account's book with that id, including one marked as deleted. */
export async function findBook(db: Kysely<Database>, accountId: number, id: number): Promise<BookRow | undefined> {
  const row = await db
    .selectFrom('address_books')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
  return row && toBook(row)
}

/**
 * Lists with every count of their records, in one statement: the hot reads (GET /addressbooks/{id} and the list of
 * lists) then cost one round trip. The email counts are sums of the kept counts (status 1 is Active: API.md 3.2).
 */
function booksWithCounts(db: Kysely<Database>) {
  return db
    .selectFrom('address_books')
    .selectAll('address_books')
    .select((eb) => {
      const emails = () =>
        eb.selectFrom('contact_counts as c').select((e) => e.fn.coalesce(e.fn.sum<number>('c.count'), e.lit(0)).as('n')).whereRef('c.address_book_id', '=', 'address_books.id')
      return [emails().as('emails_all'), emails().where('c.status', '=', CONTACT_STATUS.active).as('emails_active'), ...numberCountColumns(eb)]
    })
}

type BookWithCountsRow = Selectable<AddressBooksTable> & { emails_all: unknown; emails_active: unknown } & Parameters<typeof numberCountsOf>[0]

function toBookWithCounts(row: BookWithCountsRow): BookWithCounts {
  return { ...toBook(row), counts: { all: Number(row.emails_all), active: Number(row.emails_active) }, numbers: numberCountsOf(row) }
}

const findBookWithCountsQuery = prepareQuery<{ accountId: number; id: number }, BookWithCountsRow>((db, param) => {
  const accountId = param('accountId')
  const id = param('id')
  if (!isPostgres(db)) return booksWithCounts(db).where('account_id', '=', accountId).where('id', '=', id)
  // The same counts as one-row tables joined to the record: see numberCountTables.
  const emails = db
    .selectFrom('contact_counts')
    .select((e) => [
      e.fn.coalesce(e.fn.sum<number>('count'), e.lit(0)).as('emails_all'),
      e.fn.coalesce(e.fn.sum<number>(e.case().when('status', '=', CONTACT_STATUS.active).then(e.ref('count')).else(0).end()), e.lit(0)).as('emails_active'),
    ])
    .where('address_book_id', '=', id)
  const { numbers, blacklisted } = numberCountTables(db, id, accountId)
  return db
    .selectFrom('address_books')
    .innerJoin(emails.as('emails'), (join) => join.onTrue())
    .innerJoin(numbers, (join) => join.onTrue())
    .innerJoin(blacklisted, (join) => join.onTrue())
    .selectAll('address_books')
    .select(['emails.emails_all', 'emails.emails_active', 'numbers.numbers_all', 'numbers.numbers_new', 'numbers.numbers_active', 'blacklisted.blacklisted_new', 'blacklisted.blacklisted_active'])
    .where('address_books.account_id', '=', accountId)
    .where('address_books.id', '=', id)
})

/** findBook with the counts of its record. */
export async function findBookWithCounts(db: Kysely<Database>, accountId: number, id: number): Promise<BookWithCounts | undefined> {
  const row = await findBookWithCountsQuery.executeTakeFirst(db, { accountId, id })
  return row && toBookWithCounts(row)
}

const listLiveBooksWithCountsQuery = prepareQuery<{ accountId: number; limit: number; offset: number }, BookWithCountsRow>((db, param) =>
  booksWithCounts(db)
    .where('account_id', '=', param('accountId'))
    .where('status', '<>', BOOK_STATUS.deleted)
    .orderBy('id')
    .limit(param('limit'))
    .offset(param('offset')),
)

/** The account's books that are not marked as deleted, oldest first, with the counts of their records. */
export async function listLiveBooksWithCounts(db: Kysely<Database>, accountId: number, page: Page): Promise<BookWithCounts[]> {
  const rows = await listLiveBooksWithCountsQuery.execute(db, { accountId, limit: page.limit, offset: page.offset })
  return rows.map(toBookWithCounts)
}

export async function renameLiveBook(
  db: Kysely<Database>,
  change: { accountId: number; id: number; name: string; now: number },
): Promise<boolean> {
  const result = await db
    .updateTable('address_books')
    .set({ name: change.name, updated_at: change.now })
    .where('account_id', '=', change.accountId)
    .where('id', '=', change.id)
    .where('status', '<>', BOOK_STATUS.deleted)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function markBookDeleted(db: Kysely<Database>, accountId: number, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('address_books')
    .set({ status: BOOK_STATUS.deleted, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '<>', BOOK_STATUS.deleted)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Contact counts per book (status 1 is Active: API.md 3.2), from the counts kept with the contacts. */
export async function countContactsByBook(db: Kysely<Database>, bookIds: number[]): Promise<Map<number, BookCounts>> {
  const counts = new Map<number, BookCounts>()
  for (const r of await readCounts(db, bookIds)) {
    let c = counts.get(r.bookId)
    if (!c) counts.set(r.bookId, (c = { ...ZERO_COUNTS }))
    c.all += r.count
    if (r.status === 1) c.active += r.count
  }
  return counts
}

export async function listBookVariables(db: Kysely<Database>, bookId: number): Promise<{ name: string; type: string }[]> {
  return db.selectFrom('address_book_variables').select(['name', 'type']).where('address_book_id', '=', bookId).orderBy('id').execute()
}

/** The declared variable types of several books: book id → variable name → type. */
export async function variableTypesOfBooks(db: Kysely<Database>, bookIds: number[]): Promise<Map<number, Map<string, string>>> {
  const out = new Map<number, Map<string, string>>(bookIds.map((id) => [id, new Map()]))
  if (bookIds.length === 0) return out
  const rows = await db
    .selectFrom('address_book_variables')
    .select(['address_book_id', 'name', 'type'])
    .where('address_book_id', 'in', bookIds)
    .execute()
  for (const r of rows) out.get(Number(r.address_book_id))?.set(r.name, r.type)
  return out
}

function toBook(row: Selectable<AddressBooksTable>): BookRow {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    name: row.name,
    status: row.status,
    createdAt: Number(row.created_at),
    contactsGeneration: Number(row.contacts_generation),
  }
}
