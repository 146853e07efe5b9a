// An email contact's phone (the `Phone` variable, PUT /addressbooks/{id}/phone, a CSV phone column) is also
// one of its list's numbers, so the list's SMS campaigns reach it. Only adding: a contact that leaves the list
// or changes its phone leaves the number as it is (DELETE /sms/numbers removes numbers).
import type { Kysely } from 'kysely'
import type { Database } from '../../storage/tables.js'
import * as listPhonesRepo from '../../storage/repos/list-phones.js'
import { CONTACT_STATUS } from '../../storage/repos/contacts.js'
import type { ContactVariables } from './contact-variables.js'

export interface PhonedContact {
  /** Stored form (E.164 digits) */
  phone: string
  /** The contact's status in the list */
  status: number
  /** The variables given with the contact: a new number gets them, a number already there gets them merged. */
  variables: ContactVariables
}

/**
 * The status a contact's new number gets: a contact awaiting its confirmation (double opt-in) or the operator's
 * activation (TIDINGS_CONTACT_ACTIVATION=manual) gets nothing sent, by SMS either; any other is Active (an email
 * unsubscribe does not unsubscribe from SMS: the SMS blacklist does).
 */
export function numberStatusOf(contactStatus: number): number {
  return contactStatus === CONTACT_STATUS.new || contactStatus === CONTACT_STATUS.confirmationRequested ? contactStatus : CONTACT_STATUS.active
}

/** Adds the contacts' phones to the list's numbers, in the caller's transaction. */
export async function addNumbersOfContacts(
  tx: Kysely<Database>,
  batch: { accountId: number; bookId: number; now: number; contacts: readonly PhonedContact[] },
): Promise<void> {
  const byPhone = new Map<string, PhonedContact>()
  for (const c of batch.contacts) {
    const earlier = byPhone.get(c.phone)
    byPhone.set(c.phone, earlier ? { ...c, variables: { ...earlier.variables, ...c.variables } } : c)
  }
  if (byPhone.size === 0) return
  const scope = { accountId: batch.accountId, bookId: batch.bookId, now: batch.now }
  const numbers = [...byPhone.values()]
  const added = await listPhonesRepo.insertNewNumbers(tx, {
    ...scope,
    numbers: numbers.map((c) => ({ phone: c.phone, status: numberStatusOf(c.status), variables: JSON.stringify(c.variables) })),
  })
  const changes = numbers.filter((c) => !added.has(c.phone) && Object.keys(c.variables).length > 0)
  await listPhonesRepo.mergeVariables(tx, { ...scope, changes: changes.map((c) => ({ phone: c.phone, patch: JSON.stringify(c.variables) })) })
}

/** A contact confirmed its subscription (double opt-in): its number, waiting with it, becomes Active too. */
export async function confirmNumberOfContact(tx: Kysely<Database>, contact: { accountId: number; bookId: number; phone: string | null }, now: number): Promise<void> {
  if (contact.phone === null) return
  const { confirmationRequested, active } = CONTACT_STATUS
  await listPhonesRepo.changeNumberStatus(tx, { accountId: contact.accountId, bookId: contact.bookId, phones: [contact.phone], from: confirmationRequested, to: active, now })
}
