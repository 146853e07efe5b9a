// An address across all the lists of an account (API.md 4.5).
import * as contactsRepo from '../../storage/repos/contacts.js'
import * as messageStats from '../../storage/repos/message-stats.js'
import { distinctAddresses, normalizeEmail } from '../../lib/email-address.js'
import { toContact, type Contact } from './contacts.js'
import { AppError } from '../errors.js'
import { blacklistedAmong } from './blacklist.js'
import { recordContactEvents } from '../events/events.js'
import type { Deps } from '../types.js'

export interface ListedContact extends Contact {
  bookName: string
  /** The variable types of the contact's list. */
  types: ReadonlyMap<string, string>
}

/** The account's contacts with these addresses, grouped by stored address, in list order. */
export async function findEverywhere(deps: Deps, accountId: number, rawEmails: readonly unknown[]): Promise<Map<string, ListedContact[]>> {
  const emails = distinctAddresses(rawEmails)
  const rows = await contactsRepo.findAccountContacts(deps.db, accountId, emails)
  const out = new Map<string, ListedContact[]>()
  for (const row of rows) {
    const listed = { ...toContact(row), bookName: row.bookName, types: row.variableTypes }
    out.set(row.email, [...(out.get(row.email) ?? []), listed])
  }
  return out
}

export interface AddressStatistics {
  sent: number
  opened: number
  clicked: number
  blacklisted: boolean
  books: { id: number; name: string }[]
}

/**
 * Campaign statistics of addresses with their lists and blacklist state (GET /emails/{email}/campaigns,
 * POST /emails/campaigns).
 */
export async function statisticsOf(deps: Deps, accountId: number, rawEmails: readonly unknown[]): Promise<Map<string, AddressStatistics>> {
  const emails = distinctAddresses(rawEmails)
  const found = await findEverywhere(deps, accountId, emails)
  const blacklisted = await blacklistedAmong(deps, accountId, emails)
  const totals = await messageStats.addressTotals(deps.db, accountId, emails)
  return new Map(
    emails.map((email) => [
      email,
      {
        sent: totals.get(email)?.sent ?? 0,
        opened: totals.get(email)?.opened ?? 0,
        clicked: totals.get(email)?.clicked ?? 0,
        blacklisted: blacklisted.has(email),
        books: (found.get(email) ?? []).map((c) => ({ id: c.bookId, name: c.bookName })),
      },
    ]),
  )
}

/** GET /emails/{email}: the lists holding the address; an address in no list has an empty answer. */
export async function findAddress(deps: Deps, accountId: number, rawEmail: string): Promise<ListedContact[]> {
  const email = addressOf(rawEmail)
  return (await findEverywhere(deps, accountId, [email])).get(email) ?? []
}

/** DELETE /emails/{email}: the address leaves every list of this account (and no other account's). */
export async function deleteEverywhere(deps: Deps, accountId: number, rawEmail: string): Promise<number> {
  const email = addressOf(rawEmail)
  return deps.db.transaction().execute(async (tx) => {
    const gone = await contactsRepo.deleteFromAccount(tx, accountId, email)
    await recordContactEvents(tx, 'delete', accountId, gone, deps.now())
    return gone.length
  })
}

function addressOf(rawEmail: string): string {
  const email = normalizeEmail(rawEmail)
  if (!email) throw new AppError('invalid', 'Argument email is invalid')
  return email
}

export async function statisticsOfAddress(deps: Deps, accountId: number, rawEmail: string): Promise<AddressStatistics> {
  const email = addressOf(rawEmail)
  const stats = (await statisticsOf(deps, accountId, [email])).get(email)
  if (!stats) throw new AppError('invalid', 'Argument email is invalid')
  return stats
}
