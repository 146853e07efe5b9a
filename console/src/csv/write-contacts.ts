// Writes a list's contacts as CSV (RFC 4180: CRLF line ends, a field quoted when it holds a quote, comma or line break,
// or starts or ends with a space), with a BOM so that spreadsheets read it as UTF-8. The columns: email, status, then
// every variable any contact has, in the order they first appear; the console's import reads such a file back.
import type { VariableValue } from './read-contacts.js'

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
  return '\ufeff' + lines.map((fields) => fields.map(csvField).join(',') + '\r\n').join('')
}

export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}
