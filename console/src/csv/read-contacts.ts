// Reads a CSV file of contacts in the browser with csv-parse, the parser `tidings import` uses (its browser build;
// loaded only when a file is chosen: 14 KB gzipped of the 200 KB budget), and the same conventions as that command
// (src/services/audience/contact-import.ts): the first non-blank line is the header; its `email` (or `e-mail`)
// column, in any case, holds the addresses and every other named column becomes a variable; blank lines are skipped;
// a row with more fields than the header is refused; a column whose values are all plain numbers is sent as numbers.
// A file the console exported (write-contacts.ts) reads back the same: the apostrophe the export puts before a cell that
// a spreadsheet would take for a formula is taken off, and its `status` column is the contacts' status, not a variable.
import { parse } from 'csv-parse/browser/esm/sync'
// The server's own rule for variable names (pure, no storage): a bad column name is said once, before anything is sent,
// as `tidings import` says it, rather than by the API refusing every batch.
import { isPhoneVariable, variableNameProblem } from '../../../src/services/audience/contact-variables.js'
import { STATUS_TEXTS } from '../../../src/api/wire/contact-status.js'
import { FORMULA_START } from './write-contacts.js'

/** Header names of the address column (compared lower-cased), as `tidings import` has them. */
const EMAIL_HEADERS = new Set(['email', 'e-mail'])
/**
 * The statuses a row of an export may be added back with. The API cannot give a status: a contact it adds to another
 * list is Active (one already in the list keeps its own). A contact who unsubscribed, bounced, complained or never
 * confirmed must not become Active that way, so such rows are skipped and reported.
 */
const ADDABLE_STATUSES = new Set(['Active', 'New'])

/** A number written the plain way: no leading zeros (zip codes, ids stay text), at most 15 digits (exact in a double). */
const PLAIN_NUMBER = /^-?(0|[1-9]\d{0,14})(\.\d{1,15})?$/

export type VariableValue = string | number

export interface CsvContact {
  /** Line of the file where the row starts (the header is line 1 when the file starts with it). */
  line: number
  email: string
  variables: Record<string, VariableValue>
}

export interface SkippedRow {
  /** Undefined when the API named an address no row of the batch holds. */
  line?: number
  reason: string
}

export interface ContactsCsv {
  /** The variable columns, in file order. */
  variables: string[]
  /** Whether a `status` column is the contacts' status (all its values are status texts, as in an export), not a variable. */
  statusColumn: boolean
  contacts: CsvContact[]
  /** Rows refused before anything was sent. */
  skipped: SkippedRow[]
}

/** A file that cannot be imported at all: its message says why (and where). */
export class CsvProblem extends Error {}

export function readContactsCsv(text: string): ContactsCsv {
  let records: string[][]
  try {
    records = parse(text, { bom: true, relax_column_count: true, record_delimiter: ['\r\n', '\n'], cast: fromSpreadsheetText }) as string[][]
  } catch (err) {
    throw new CsvProblem(`The file is not valid CSV: ${err instanceof Error ? err.message : String(err)}`)
  }
  // Every record is one line (a blank line is a record of one empty field) plus the line breaks in its fields.
  let line = 1
  let header: string[] | undefined
  let emailColumn = -1
  let variableColumns: { name: string; index: number }[] = []
  const rows: { line: number; fields: string[] }[] = []
  const skipped: SkippedRow[] = []
  for (const record of records) {
    const start = line
    line += 1 + record.reduce((breaks, field) => breaks + countLineBreaks(field), 0)
    // Blank lines, and a spreadsheet's ",,," lines, are no rows.
    if (record.every((field) => field.trim() === '')) continue
    if (!header) {
      header = record.map((name) => name.trim())
      emailColumn = header.findIndex((name) => EMAIL_HEADERS.has(name.toLowerCase()))
      if (emailColumn < 0) throw new CsvProblem(`The header (line ${start}) has no email column; it names: ${header.filter(Boolean).join(', ') || 'nothing'}.`)
      variableColumns = variableColumnsOf(header, emailColumn)
      continue
    }
    if (record.length > header.length) skipped.push({ line: start, reason: `${record.length} fields where the header has ${header.length}` })
    else rows.push({ line: start, fields: record })
  }
  if (!header) throw new CsvProblem('The file is empty: its first line must be a header naming an email column.')
  const statusColumn = variableColumns.find(({ name, index }) => name.toLowerCase() === 'status' && isStatusColumn(rows, index))
  if (statusColumn) {
    variableColumns = variableColumns.filter((column) => column !== statusColumn)
    for (let i = rows.length - 1; i >= 0; i--) {
      const status = rows[i]!.fields[statusColumn.index]?.trim() ?? ''
      if (status === '' || ADDABLE_STATUSES.has(status)) continue
      skipped.push({ line: rows[i]!.line, reason: `${status}: not added again (it would be Active)` })
      rows.splice(i, 1)
    }
    skipped.sort((a, b) => a.line! - b.line!)
  }
  const numberColumns = new Set(variableColumns.filter((column) => isNumberColumn(rows, column.index)).map((column) => column.name))
  const contacts = rows.map(({ line, fields }) => {
    const variables: Record<string, VariableValue> = {}
    for (const { name, index } of variableColumns) {
      const text = fields[index]?.trim()
      if (text) variables[name] = numberColumns.has(name) ? Number(text) : text
    }
    return { line, email: fields[emailColumn] ?? '', variables }
  })
  return { variables: variableColumns.map((column) => column.name), statusColumn: statusColumn !== undefined, contacts, skipped }
}

/** The value a cell of an export holds: one apostrophe before a formula's first character is the export's. */
function fromSpreadsheetText(field: string): string {
  return field.startsWith("'") && FORMULA_START.test(field) ? field.slice(1) : field
}

/** An export's status column: every value it holds is one of the API's status texts. */
function isStatusColumn(rows: { fields: string[] }[], index: number): boolean {
  return rows.every(({ fields }) => {
    const text = fields[index]?.trim()
    return !text || STATUS_TEXTS.includes(text)
  })
}

function variableColumnsOf(header: string[], emailColumn: number): { name: string; index: number }[] {
  const columns: { name: string; index: number }[] = []
  const seen = new Set<string>()
  header.forEach((name, index) => {
    if (index === emailColumn || name === '') return
    if (seen.has(name)) throw new CsvProblem(`The header names column “${name}” twice.`)
    const problem = isPhoneVariable(name) ? undefined : variableNameProblem(name)
    if (problem) throw new CsvProblem(`Column “${name}” cannot be a variable: ${problem}.`)
    seen.add(name)
    columns.push({ name, index })
  })
  return columns
}

/** A variable takes its type from its first value: a column is sent as numbers only when every value it holds is one. */
function isNumberColumn(rows: { fields: string[] }[], index: number): boolean {
  let any = false
  for (const { fields } of rows) {
    const text = fields[index]?.trim()
    if (!text) continue
    if (!PLAIN_NUMBER.test(text)) return false
    any = true
  }
  return any
}

function countLineBreaks(field: string): number {
  let n = 0
  for (let i = field.indexOf('\n'); i >= 0; i = field.indexOf('\n', i + 1)) n++
  return n
}
