// The wire shapes of a contact (API.md 2.2), shared by the list routes and the address routes.
import type { Contact } from '../../services/audience/contacts.js'
import { statusExplain } from './contact-status.js'

export { statusExplain }

/** In lists the phone is a number or null, never "" (COMPAT.md: the Go SDK decodes it into an int). */
export function phoneAsNumber(phone: string | null): number | null {
  return phone ? Number(phone) : null
}

/** An item of GET /addressbooks/{id}/emails: variables as a map. */
export function toListedEmail(contact: Contact) {
  return {
    email: contact.email,
    status: contact.status,
    status_explain: statusExplain(contact.status),
    phone: phoneAsNumber(contact.phone),
    variables: contact.variables,
  }
}

