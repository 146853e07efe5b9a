// The wire shapes of a contact (API.md 2.2), shared by the list routes and the address routes.
import type { Contact } from '../../services/audience/contacts.js'

/** API.md 3.2 */
const CONTACT_STATUS_TEXT: Record<number, string> = {
  0: 'New',
  1: 'Active',
  2: 'Confirmation requested',
  3: 'Activation requested',
  4: 'Unsubscribed',
  5: 'Rejected by the admin',
  6: 'Unsubscribed from all newsletters',
  7: 'Activation is requested',
  8: 'Blocked',
  9: 'Sending error',
  10: 'Blocked',
  11: 'Blocked',
  12: 'Blocked',
  13: 'Deleted by the user',
  14: 'Temporarily unavailable',
}

export function statusExplain(status: number): string {
  return CONTACT_STATUS_TEXT[status] ?? 'Unknown'
}

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

