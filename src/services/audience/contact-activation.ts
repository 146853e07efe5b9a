// Manual activation (TIDINGS_CONTACT_ACTIVATION=manual): contacts are added as New (status 0) and the
// operator makes them Active with `tidings contacts activate`.
import * as contactsRepo from '../../storage/repos/contacts.js'
import { normalizeEmail } from '../../lib/email-address.js'
import { AppError } from '../errors.js'
import { getAccount } from '../accounts/accounts.js'
import { checkAccountList } from './contact-import.js'
import type { Deps } from '../types.js'

export interface ActivationScope {
  accountId: number
  /** Only this list of the account; every list when absent. */
  bookId?: number
  /** Only these addresses; every New contact when absent or empty. */
  emails?: readonly string[]
}

/** Makes the New contacts in `scope` Active; returns how many changed. */
export async function activateContacts(deps: Deps, scope: ActivationScope): Promise<number> {
  if (scope.bookId === undefined) await getAccount(deps, scope.accountId)
  else await checkAccountList(deps, scope.accountId, scope.bookId)
  let emails: string[] | undefined
  if (scope.emails && scope.emails.length > 0) {
    emails = scope.emails.map((raw) => {
      const email = normalizeEmail(raw)
      if (!email) throw new AppError('invalid', `not an email address: ${raw}`)
      return email
    })
  }
  return contactsRepo.activateNewContacts(deps.db, { accountId: scope.accountId, bookId: scope.bookId, emails }, deps.now())
}
