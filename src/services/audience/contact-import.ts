// Bulk import of a list's contacts from CSV (`tidings import`): the file is streamed through csv-parse and
// sent to addContacts in batches, so memory stays flat whatever the file's size; rows that cannot be stored
// come back as rejects with the reason and their line. A file with a phone column and no email column holds
// numbers alone: they go to the list's numbers (list-numbers.ts) the same way.
import type { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { parse } from 'csv-parse'
import { AppError } from '../errors.js'
import { getAccount } from '../accounts/accounts.js'
import { getLiveBook, listVariables } from './addressbooks.js'
import { addContacts } from './contacts.js'
import { storeNumbers, type NumberEntry } from './list-numbers.js'
import { isDeadlockVictim } from '../../storage/db.js'
import { prepareContacts } from './contact-input.js'
import { isPhoneVariable, variableNameProblem, type ContactVariables, type VariableValue } from './contact-variables.js'
import { normalizeEmail } from '../../lib/email-address.js'
import { refreshContactStatistics } from '../../storage/repos/contacts.js'
import type { Deps } from '../types.js'

/**
 * Rows per addContacts call (one transaction each). Measured with bench/import.ts (300,000 rows): 5,000 is as
 * fast as 20,000 on both databases with 60–100 MiB less peak RSS; 2,000 is 10–20% slower.
 */
export const IMPORT_BATCH = 5000
/**
 * Batches in flight. With two, the next batch is validated while PostgreSQL stores the previous one (the CLI
 * was idle half of the time with one); SQLite runs them one after the other anyway. Contacts of two adjacent
 * batches may thus get interleaved ids (list order).
 */
const IN_FLIGHT = 2
/** Attempts of a batch that PostgreSQL chose as a deadlock victim (two batches in flight repeat addresses in
 * opposite orders): it was rolled back whole, so it can run again, after a random pause so that the two
 * batches do not collide again in step (3 immediate attempts lost all three once in CI). */
const DEADLOCK_ATTEMPTS = 10
const DEADLOCK_PAUSE_MS = 50

/** Header names of the address column (compared lower-cased). */
const EMAIL_HEADERS = new Set(['email', 'e-mail'])
/** A number written the plain way: no leading zeros (zip codes, ids stay text), at most 15 digits (exact in a double). */
const PLAIN_NUMBER = /^-?(0|[1-9]\d{0,14})(\.\d{1,15})?$/

export interface ImportSummary {
  added: number
  /** Rows whose address was already in the list, or earlier in the file: their variables were merged. */
  updated: number
  invalid: number
  /** Rows whose address is on the account's blacklist: not stored. */
  blacklisted: number
  /** Data rows read (the header and blank lines excluded); the four counts above add up to it. */
  rows: number
}

export interface RejectedRow {
  /** Line of the file where the row starts (the header is line 1). */
  line: number
  /** The row's fields as read. */
  fields: string[]
  reason: string
}

export interface ImportInput {
  accountId: number
  bookId: number
  /** The CSV text (UTF-8, a BOM is skipped), first line the header. */
  csv: Readable
  /** Receives the rows that were not stored, batch by batch in file order; awaited, so a slow writer slows the import. */
  onRejected(rows: RejectedRow[]): Promise<void>
  /** Called with the header once it is read (before any onRejected). */
  onHeader?(header: string[]): void
  /** Called after each batch with the counts so far. */
  onProgress?(summary: Readonly<ImportSummary>): void
}

interface Row {
  line: number
  fields: string[]
}

/** Checks the account and the list, then imports every row of `input.csv` into the list. */
export async function importContacts(deps: Deps, input: ImportInput): Promise<ImportSummary> {
  await checkAccountList(deps, input.accountId, input.bookId)
  const summary: ImportSummary = { added: 0, updated: 0, invalid: 0, blacklisted: 0, rows: 0 }
  let columns: Columns | undefined
  let rows: Row[] = []
  const inFlight: Promise<BatchOutcome>[] = []
  const settleOldest = async () => {
    const outcome = await inFlight.shift()!
    for (const key of ['added', 'updated', 'invalid', 'blacklisted', 'rows'] as const) summary[key] += outcome.counts[key]
    if (outcome.rejected.length > 0) await input.onRejected(outcome.rejected)
    input.onProgress?.(summary)
  }
  const send = async () => {
    const job = storeBatch(deps, input, prepareBatch(columns!, rows))
    job.catch(() => {}) // awaited in settleOldest; this only keeps a failure meanwhile from being "unhandled"
    inFlight.push(job)
    rows = []
    // The first batch runs alone: it declares the list's new variables before any other batch reads them.
    if (inFlight.length >= IN_FLIGHT || summary.rows === 0) await settleOldest()
  }

  // Lines are counted here (csv-parse's `info` counts a CRLF as two lines, and costs 6% of an import's CPU):
  // every record is one line (a blank line is a record of one empty field) plus the line breaks in its fields.
  let line = 0
  let breaksInFields = 0
  const parser = parse({ bom: true, relax_column_count: true, record_delimiter: ['\r\n', '\n'] })
  input.csv.on('error', (err) => parser.destroy(err))
  try {
    for await (const record of input.csv.pipe(parser) as AsyncIterable<string[]>) {
      line++
      const row = { line: line + breaksInFields, fields: record }
      for (const field of record) breaksInFields += countLineBreaks(field)
      // Blank lines, and a spreadsheet's ",,," lines, are no rows.
      if (record.every((field) => field.trim() === '')) continue
      if (!columns) {
        columns = readHeader(record)
        input.onHeader?.(record)
        continue
      }
      rows.push(row)
      if (rows.length === IMPORT_BATCH) await send()
    }
    if (!columns) throw new AppError('invalid', 'the file is empty: the first line must be a header naming an email (or a phone) column')
    if (rows.length > 0) await send()
    while (inFlight.length > 0) await settleOldest()
    // Without fresh statistics PostgreSQL pages a list just filled by sorting it whole (1.1 s at offset 100,000).
    if (summary.added > 0) await refreshContactStatistics(deps.db)
  } catch (err) {
    if (!isCsvError(err)) {
      await Promise.allSettled(inFlight) // no transaction is left running when the caller closes the database
      throw err
    }
    // The rows read before the error are still imported, so that the message can say where to resume.
    if (rows.length > 0) await send()
    while (inFlight.length > 0) await settleOldest()
    throw new AppError('invalid', `the file is not valid CSV after line ${line + breaksInFields} (the ${summary.rows} rows before it were processed): ${err.message}`, { cause: err })
  }
  return summary
}

/** For operator commands: the account exists and the list is one of its live lists, or a message saying which not. */
export async function checkAccountList(deps: Deps, accountId: number, bookId: number): Promise<void> {
  await getAccount(deps, accountId)
  try {
    await getLiveBook(deps, accountId, bookId)
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') {
      throw new AppError('not_found', `list ${bookId} not found in account ${accountId}`, { cause: err })
    }
    throw err
  }
}

// ---- the header ----------------------------------------------------------------------------------------

interface Columns {
  width: number
  /** The address column; -1 in a file of numbers alone. */
  email: number
  /** The number column of a file of numbers alone, else -1 (a Phone column of contacts is one of their variables). */
  phone: number
  /** Variable columns (header name and position); columns with an empty name are left out. */
  variables: { name: string; index: number; isNumber?: boolean }[]
}

function readHeader(header: string[]): Columns {
  const names = header.map((h) => h.trim())
  const email = names.findIndex((n) => EMAIL_HEADERS.has(n.toLowerCase()))
  const phone = email < 0 ? names.findIndex(isPhoneVariable) : -1
  if (email < 0 && phone < 0) {
    throw new AppError('invalid', `the header has no email column, nor a Phone column for numbers alone (it names: ${names.filter(Boolean).join(', ') || 'nothing'})`)
  }
  const variables: Columns['variables'] = []
  const seen = new Set<string>()
  names.forEach((name, index) => {
    if (index === email || index === phone || name === '') return
    if (seen.has(name)) throw new AppError('invalid', `the header names column "${name}" twice`)
    seen.add(name)
    const problem = isPhoneVariable(name) ? undefined : variableNameProblem(name)
    if (problem) throw new AppError('invalid', `column "${name}" cannot be a variable: ${problem}`)
    variables.push({ name, index })
  })
  return { width: header.length, email, phone, variables }
}

/**
 * A new variable takes its type from its first value (contact-variables.ts), and every CSV value is text:
 * a column is sent as numbers when all its values in the first batch holding any are plain numbers.
 */
function decideNumberColumns(columns: Columns, rows: readonly Row[]): void {
  for (const column of columns.variables) {
    if (column.isNumber !== undefined || isPhoneVariable(column.name)) continue
    const values = rows.map((r) => r.fields[column.index]?.trim()).filter((v): v is string => v !== undefined && v !== '')
    if (values.length > 0) column.isNumber = values.every((v) => PLAIN_NUMBER.test(v))
  }
}

function toItem(columns: Columns, fields: string[]): { email: string; variables: ContactVariables } {
  const variables: ContactVariables = {}
  for (const column of columns.variables) {
    const text = fields[column.index]?.trim()
    if (text === undefined || text === '') continue
    const value: VariableValue = column.isNumber && PLAIN_NUMBER.test(text) ? Number(text) : text
    variables[column.name] = value
  }
  return { email: fields[columns.email] ?? '', variables }
}

// ---- one batch -----------------------------------------------------------------------------------------

interface PreparedBatch {
  rows: number
  /** Rows refused before addContacts (more fields than the header). */
  refused: RejectedRow[]
  items: { email: string; variables: ContactVariables }[]
  /** In a file of numbers alone, the items as numbers to store (the same positions). */
  numbers?: NumberEntry[]
  /** addContacts hands rejected items back as the same objects. */
  rowOf: Map<object, Row>
}

interface BatchOutcome {
  counts: ImportSummary
  rejected: RejectedRow[]
}

/** Turns rows into addContacts items; synchronous, so that batches in flight see the column types in file order. */
function prepareBatch(columns: Columns, rows: Row[]): PreparedBatch {
  const refused: RejectedRow[] = []
  const readable: Row[] = []
  for (const row of rows) {
    if (row.fields.length > columns.width) refused.push({ ...row, reason: `${row.fields.length} fields where the header has ${columns.width}` })
    else readable.push(row)
  }
  decideNumberColumns(columns, readable)
  const items = readable.map((row) => toItem(columns, row.fields))
  const rowOf = new Map<object, Row>(items.map((item, i) => [item, readable[i]!]))
  if (columns.phone < 0) return { rows: rows.length, refused, items, rowOf }
  const numbers = readable.map((row, i) => ({
    phone: row.fields[columns.phone] ?? '',
    variables: Object.entries(items[i]!.variables).map(([name, value]) => ({ name, value })),
  }))
  return { rows: rows.length, refused, items, numbers, rowOf: new Map<object, Row>(numbers.map((entry, i) => [entry, readable[i]!])) }
}

/** Sends one batch to addContacts; returns its counts and its rejected rows in file order. */
async function storeBatch(deps: Deps, input: ImportInput, batch: PreparedBatch): Promise<BatchOutcome> {
  const rejected = [...batch.refused]
  const counts: ImportSummary = { added: 0, updated: 0, invalid: 0, blacklisted: 0, rows: batch.rows }
  if (batch.items.length === 0) return { counts: { ...counts, invalid: rejected.length }, rejected }
  if (batch.numbers) return storeNumberBatch(deps, input, batch, batch.numbers)

  const result = await addToList(deps, input, batch.items)
  const rejectedItems = new Set<unknown>()
  for (const r of result.rejected) {
    rejectedItems.add(r.item)
    rejected.push({ ...batch.rowOf.get(r.item as object)!, reason: r.reason })
  }
  if (result.blacklisted.length > 0) {
    const blacklisted = new Set(result.blacklisted)
    for (const item of batch.items) {
      if (rejectedItems.has(item) || !blacklisted.has(normalizeEmail(item.email) ?? '')) continue
      counts.blacklisted++
      rejected.push({ ...batch.rowOf.get(item)!, reason: 'the address is on the account blacklist' })
    }
  }
  counts.invalid = rejected.length - counts.blacklisted
  counts.added = result.added
  // Rows repeating an address earlier in the batch were merged into it: they count as updates, as they
  // would had they come in a later batch.
  counts.updated = batch.items.length - result.rejected.length - counts.blacklisted - result.added
  rejected.sort((a, b) => a.line - b.line)
  return { counts, rejected }
}

/** A batch of a file of numbers alone: numbers already in the list get their variables merged (`updated`). */
async function storeNumberBatch(deps: Deps, input: ImportInput, batch: PreparedBatch, numbers: NumberEntry[]): Promise<BatchOutcome> {
  const outcome = await retryingDeadlocks(() => storeNumbers(deps, input.accountId, input.bookId, numbers, 'import'))
  const rejected = [...batch.refused, ...outcome.rejected.map((r) => ({ ...batch.rowOf.get(numbers[r.index]!)!, reason: r.reason }))]
  rejected.sort((a, b) => a.line - b.line)
  return { counts: { added: outcome.added, updated: outcome.exists, invalid: rejected.length, blacklisted: 0, rows: batch.rows }, rejected }
}

type AddResult = { added: number; rejected: { item: unknown; reason: string }[]; blacklisted: string[] }

async function addToList(deps: Deps, input: ImportInput, items: PreparedBatch['items']): Promise<AddResult> {
  try {
    return await retryingDeadlocks(() => addContacts(deps, input.accountId, input.bookId, items, { source: 'import' }))
  } catch (err) {
    if (!isEveryItemInvalid(err)) throw err
    // Nothing was written; the reasons per row come from the same checks addContacts made.
    const types = new Map((await listVariables(deps, input.accountId, input.bookId)).map((v) => [v.name, v.type]))
    return { added: 0, rejected: prepareContacts(items, types).rejected, blacklisted: [] }
  }
}

/** Runs `work` (one transaction) again when PostgreSQL chose it as a deadlock victim: it was rolled back whole. */
async function retryingDeadlocks<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (err) {
      if (!isDeadlockVictim(err) || attempt >= DEADLOCK_ATTEMPTS) throw err
      await sleep(Math.random() * DEADLOCK_PAUSE_MS * attempt)
    }
  }
}

function isEveryItemInvalid(err: unknown): boolean {
  return err instanceof AppError && err.code === 'invalid' && err.message.startsWith('Argument emails is invalid')
}

/** csv-parse's errors carry a `CSV_…` code. */
function isCsvError(err: unknown): err is Error {
  const code = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined
  return typeof code === 'string' && code.startsWith('CSV_')
}

function countLineBreaks(field: string): number {
  let n = 0
  for (let i = field.indexOf('\n'); i >= 0; i = field.indexOf('\n', i + 1)) n++
  return n
}
