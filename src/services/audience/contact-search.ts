// A list's contacts found by the start of their address (GET /addressbooks/{id}/emails?email_prefix=, a Tidings
// extension the console's search box uses): letters in any case, in address order, paged by keyset with
// `after_email` (the last address of the page before) so that every page costs one index seek on a list of any size.
import { AppError } from '../errors.js'
import { normalizeEmail } from '../../lib/email-address.js'
import * as contactsRepo from '../../storage/repos/contacts.js'
import { foldText, searchContacts } from '../../storage/repos/contact-search.js'
import { getLiveBook } from './addressbooks.js'
import { toContact, type Contact } from './contacts.js'
import type { Deps, Page } from '../types.js'

export interface PrefixSearch {
  prefix: string
  /** The last address of the page before. */
  afterEmail?: string
}

export async function findContactsByPrefix(deps: Deps, accountId: number, bookId: number, search: PrefixSearch, page: Page): Promise<Contact[]> {
  await getLiveBook(deps, accountId, bookId)
  const prefix = search.prefix.trim()
  if (prefix === '') throw new AppError('invalid', 'email_prefix must not be empty')
  let after: { email: string; id: number } | undefined
  if (search.afterEmail !== undefined) {
    const email = normalizeEmail(search.afterEmail)
    if (!email || !foldText(deps.db, email).startsWith(foldText(deps.db, prefix))) throw new AppError('invalid', 'after_email must be an address that starts with email_prefix')
    // A contact deleted since its page was read: the page goes on from the first contact with that folded address.
    after = { email, id: (await contactsRepo.findContact(deps.db, bookId, email))?.id ?? 0 }
  }
  return (await searchContacts(deps.db, { bookId, prefix, after }, page)).map(toContact)
}
