// Mailing lists (address books): the rules behind API.md section 4.1 (contacts themselves: issue 8).
import * as booksRepo from '../../storage/repos/address-books.js'
import * as accountsRepo from '../../storage/repos/accounts.js'
import * as campaignsRepo from '../../storage/repos/campaigns.js'
import { isUniqueViolation } from '../../storage/db.js'
import { AppError } from '../errors.js'
import type { Deps, Page } from '../types.js'

/** A list with its counts of email contacts and of numbers (API.md 4.11). */
export type Book = booksRepo.BookWithCounts

export interface Variable {
  name: string
  type: string
}

/** Every list has these two variables (API.md 2.1). */
export const BUILT_IN_VARIABLES: readonly Variable[] = [
  { name: 'email', type: 'string' },
  { name: 'name', type: 'string' },
]

const bookNotFound = () => new AppError('not_found', 'Book not found', { publishedCode: 213 })
const nameInUse = (cause: unknown) => new AppError('conflict', 'Name already in use', { publishedCode: 203, cause })

export async function createBook(deps: Deps, accountId: number, name: string): Promise<number> {
  try {
    return await booksRepo.createBook(deps.db, { accountId, name, now: deps.now() })
  } catch (err) {
    if (isUniqueViolation(err)) throw nameInUse(err)
    throw err
  }
}

export async function renameBook(deps: Deps, accountId: number, id: number, name: string): Promise<void> {
  let renamed: boolean
  try {
    renamed = await booksRepo.renameLiveBook(deps.db, { accountId, id, name, now: deps.now() })
  } catch (err) {
    if (isUniqueViolation(err)) throw nameInUse(err)
    throw err
  }
  if (!renamed) throw bookNotFound()
}

export async function listBooks(deps: Deps, accountId: number, page: Page): Promise<Book[]> {
  return booksRepo.listLiveBooksWithCounts(deps.db, accountId, page)
}

/** One book of the account; a book marked as deleted is still shown, with status 1. */
export async function getBook(deps: Deps, accountId: number, id: number): Promise<Book> {
  const book = await booksRepo.findBookWithCounts(deps.db, accountId, id)
  if (!book) throw bookNotFound()
  return book
}

/** A book that is not marked as deleted: every operation except GET by id works only on those. */
export async function getLiveBook(deps: Deps, accountId: number, id: number): Promise<booksRepo.BookRow> {
  const book = await booksRepo.findBook(deps.db, accountId, id)
  if (!book || book.status === booksRepo.BOOK_STATUS.deleted) throw bookNotFound()
  return book
}

export async function deleteBook(deps: Deps, accountId: number, id: number): Promise<void> {
  if (!(await booksRepo.markBookDeleted(deps.db, accountId, id, deps.now()))) throw bookNotFound()
}

export async function listVariables(deps: Deps, accountId: number, id: number): Promise<Variable[]> {
  await getLiveBook(deps, accountId, id)
  const own = await booksRepo.listBookVariables(deps.db, id)
  const builtIn = new Set(BUILT_IN_VARIABLES.map((v) => v.name))
  return [...BUILT_IN_VARIABLES, ...own.filter((v) => !builtIn.has(v.name))]
}

export async function countEmails(deps: Deps, accountId: number, id: number, onlyActive: boolean): Promise<number> {
  await getLiveBook(deps, accountId, id)
  const counts = (await booksRepo.countContactsByBook(deps.db, [id])).get(id) ?? booksRepo.ZERO_COUNTS
  return onlyActive ? counts.active : counts.all
}

export interface BookCost {
  currency: string
  emails: number
  priceMicros: number
  balanceMicros: number
}

/** What sending one campaign to the list's active contacts would cost against the account's balance. */
export async function estimateCost(deps: Deps, accountId: number, id: number): Promise<BookCost> {
  await getLiveBook(deps, accountId, id)
  const counts = (await booksRepo.countContactsByBook(deps.db, [id])).get(id) ?? booksRepo.ZERO_COUNTS
  if (counts.active === 0) throw new AppError('invalid', 'Addressbook is empty', { publishedCode: 211 })
  const account = await accountsRepo.findAccountById(deps.db, accountId)
  if (!account) throw bookNotFound()
  return {
    currency: account.currency,
    emails: counts.active,
    priceMicros: Math.round(deps.config.emailPrice * 1e6),
    balanceMicros: await accountsRepo.sumBalanceMicros(deps.db, accountId),
  }
}

export interface BookCampaign {
  id: number
  name: string
  status: number
}

/** Campaigns sent to the list, newest first. */
export async function listBookCampaigns(deps: Deps, accountId: number, id: number, page: Page): Promise<BookCampaign[]> {
  await getLiveBook(deps, accountId, id)
  const campaigns = await campaignsRepo.listCampaignsOfBook(deps.db, accountId, id, page)
  return campaigns.map((c) => ({ id: c.id, name: c.name, status: c.status }))
}
