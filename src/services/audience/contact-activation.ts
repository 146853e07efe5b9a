// Manual activation (TIDINGS_CONTACT_ACTIVATION=manual): contacts and list numbers are added as New (status 0)
// and the operator makes them Active with `tidings contacts activate`.
import * as contactsRepo from '../../storage/repos/contacts.js'
import * as listPhonesRepo from '../../storage/repos/list-phones.js'
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

export interface Activated {
  contacts: number
  /** List numbers (API.md 4.11): every New number of the scope, or, when addresses are given, theirs. */
  numbers: number
}

/** Makes the New contacts and numbers in `scope` Active; returns how many changed. */
export async function activateContacts(deps: Deps, scope: ActivationScope): Promise<Activated> {
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
  const now = deps.now()
  const { accountId, bookId } = scope
  return deps.db.transaction().execute(async (tx) => {
    const contacts = await contactsRepo.activateNewContacts(tx, { accountId, bookId, emails }, now)
    const phones = emails && (await contactsRepo.findPhonesOf(tx, { accountId, bookId, emails }))
    const { new: from, active: to } = contactsRepo.CONTACT_STATUS
    const numbers = await listPhonesRepo.changeNumberStatus(tx, { accountId, bookId, phones, from, to, now })
    return { contacts, numbers }
  })
}
