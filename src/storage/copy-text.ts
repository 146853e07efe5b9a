// PostgreSQL's COPY text format (https://www.postgresql.org/docs/current/sql-copy.html, "Text Format"): one
// line per row, columns separated by tabs, `\N` for null; a backslash, tab, line feed or carriage return inside
// a value is written as a backslash escape. Everything else, any Unicode included, goes through as it is.

const SPECIAL = /[\\\t\n\r]/
const SPECIAL_ALL = /[\\\t\n\r]/g
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' }

/** One value of a row; null is SQL NULL. */
export function copyValue(value: string | number | null): string {
  if (value === null) return '\\N'
  if (typeof value === 'number') return String(value)
  // Most values hold none of the four characters: the test is cheaper than a replace that finds nothing.
  return SPECIAL.test(value) ? value.replace(SPECIAL_ALL, (c) => ESCAPES[c]!) : value
}

/** One row, line feed included. */
export function copyRow(values: readonly (string | number | null)[]): string {
  let line = copyValue(values[0] ?? null)
  for (let i = 1; i < values.length; i++) line += `\t${copyValue(values[i] ?? null)}`
  return `${line}\n`
}
