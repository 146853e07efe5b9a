// The texts of the contact statuses (API.md 3.2), shared by the API's wire shapes and the console's CSV import.

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

/** Every status text a list's contacts can have (the console's import knows its export's status column by them). */
export const STATUS_TEXTS: readonly string[] = [...new Set(Object.values(CONTACT_STATUS_TEXT)), 'Unknown']

export function statusExplain(status: number): string {
  return CONTACT_STATUS_TEXT[status] ?? 'Unknown'
}
