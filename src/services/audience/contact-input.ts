// Turns the `emails` items of an add request (API.md 4.1.1) into contacts to store. Pure: the caller gives
// the list's variable types and gets back the contacts, the variables to declare and what was rejected.
import { normalizeEmail } from '../../lib/email-address.js'
import { normalizePhone } from '../../lib/phone-number.js'
import { AppError } from '../errors.js'
import {
  coerceToType,
  inferVariableType,
  isPhoneVariable,
  scalarValue,
  variableNameProblem,
  type ContactVariables,
  type VariableType,
} from './contact-variables.js'

export interface PreparedContact {
  email: string
  variables: ContactVariables
  phone: string | null
}

/** Why an item was not stored: a bad address is skipped; anything else rejects an API request. */
export interface Rejected {
  item: unknown
  kind: 'address' | 'shape' | 'variable' | 'phone'
  reason: string
}

export interface PreparedBatch {
  contacts: PreparedContact[]
  rejected: Rejected[]
  /** Variables seen for the first time, with the type their first value gives them. */
  newVariables: { name: string; type: VariableType }[]
}

/**
 * Contacts ready to store, column by column (the same positions in each): the form the repository writes
 * (repos/contact-upserts.ts) and a worker thread sends back (arrays of strings cross threads far faster than
 * objects).
 */
export interface PreparedColumns {
  emails: string[]
  phones: (string | null)[]
  /** Each contact's variables as a JSON object. */
  variables: string[]
  rejected: Rejected[]
  newVariables: PreparedBatch['newVariables']
}

/** Items prepared ahead of the transaction (on a worker thread: contact-preparer.ts), against the list's types then. */
export interface PreparedItems {
  readonly types: ReadonlyMap<string, string>
  readonly columns: PreparedColumns
  /** The items as sent, to prepare again when the list's variables changed in the meantime. */
  items(): readonly unknown[]
}

/** What an add request gives: its items as sent, or prepared already. */
export type ContactItems = readonly unknown[] | PreparedItems

const CONTACT_KEYS = new Set(['email', 'variables'])

/** The items prepared against the list's variable types `types` (read in the transaction that stores them). */
export function columnsFor(items: ContactItems, types: ReadonlyMap<string, string>): PreparedColumns {
  if (isItemList(items)) return prepareColumns(items, types)
  return sameTypes(items.types, types) ? items.columns : prepareColumns(items.items(), types)
}

function isItemList(items: ContactItems): items is readonly unknown[] {
  return Array.isArray(items)
}

function sameTypes(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false
  for (const [name, type] of a) if (b.get(name) !== type) return false
  return true
}

/** prepareContacts, with the contacts as columns. */
export function prepareColumns(items: readonly unknown[], types: ReadonlyMap<string, string>): PreparedColumns {
  const batch = prepareContacts(items, types)
  const columns: PreparedColumns = { emails: [], phones: [], variables: [], rejected: batch.rejected, newVariables: batch.newVariables }
  for (const c of batch.contacts) {
    columns.emails.push(c.email)
    columns.phones.push(c.phone)
    columns.variables.push(JSON.stringify(c.variables))
  }
  return columns
}

/**
 * `types` holds the list's declared variables. Items repeating an address are merged, later values winning,
 * as if they had been added one after the other.
 */
export function prepareContacts(items: readonly unknown[], types: ReadonlyMap<string, string>): PreparedBatch {
  const known = new Map(types)
  const byEmail = new Map<string, PreparedContact>()
  const rejected: Rejected[] = []
  const newVariables: { name: string; type: VariableType }[] = []
  // A batch repeats the same few names on every item: each is checked once.
  const allowedNames = new Set<string>()

  for (const item of items) {
    try {
      const { rawEmail, rawVariables } = readItem(item)
      const email = normalizeEmail(rawEmail)
      if (!email) {
        rejected.push({ item, kind: 'address', reason: `"${String(rawEmail)}" is not a valid email address` })
        continue
      }
      // Built apart and merged only when the whole item is valid, so a rejected item changes nothing.
      // (This loop runs a million times in an import: it avoids allocations it does not need.)
      const variables: ContactVariables = {}
      let phone: string | null = null
      let declared: Map<string, VariableType> | undefined
      for (const name in rawVariables) {
        const value = scalarValue(rawVariables[name])
        if (value instanceof Error) throw new AppError('invalid', `Variable "${name}" of ${email}: ${value.message}`)
        if (value === undefined) continue
        if (isPhoneVariable(name)) {
          phone = normalizePhone(value) ?? null
          if (!phone) throw rejection('phone', `Phone "${String(value)}" of ${email} is not valid`)
          continue
        }
        if (!allowedNames.has(name)) {
          const problem = variableNameProblem(name)
          if (problem) throw new AppError('invalid', problem)
          allowedNames.add(name)
        }
        let type = (known.get(name) as VariableType | undefined) ?? declared?.get(name)
        if (!type) {
          type = inferVariableType(value)
          ;(declared ??= new Map()).set(name, type)
        }
        variables[name] = coerceToType(name, type, value)
      }
      const previous = byEmail.get(email)
      byEmail.set(
        email,
        previous
          ? { email, variables: { ...previous.variables, ...variables }, phone: phone ?? previous.phone }
          : { email, variables, phone },
      )
      for (const [name, type] of declared ?? []) {
        known.set(name, type)
        newVariables.push({ name, type })
      }
    } catch (err) {
      if (err instanceof RejectedItem) rejected.push({ item, kind: err.kind, reason: err.message })
      else if (err instanceof AppError) rejected.push({ item, kind: 'variable', reason: err.message })
      else throw err
    }
  }
  return { contacts: [...byEmail.values()], rejected, newVariables }
}

/** A bad item; outside prepareContacts it is an ordinary 422. */
class RejectedItem extends AppError {
  constructor(
    readonly kind: Rejected['kind'],
    message: string,
  ) {
    super('invalid', message)
  }
}

function rejection(kind: Rejected['kind'], message: string): RejectedItem {
  return new RejectedItem(kind, message)
}

/** An item is an address string, or `{email, variables}` (variables an object, or a list of {name, value}). */
function readItem(item: unknown): { rawEmail: unknown; rawVariables: Record<string, unknown> } {
  if (typeof item === 'string' || typeof item === 'number') return { rawEmail: String(item), rawVariables: {} }
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    throw rejection('shape', 'Argument emails must be a list of addresses or of {"email": …, "variables": {…}} objects')
  }
  const record = item as Record<string, unknown>
  const extra = Object.keys(record).filter((key) => !CONTACT_KEYS.has(key))
  if (extra.length > 0) {
    throw rejection('shape', `Argument emails: a contact holds only "email" and "variables", not "${extra.join('", "')}"`)
  }
  if (record.email === undefined) throw rejection('shape', 'Argument emails: every contact needs "email"')
  return { rawEmail: record.email, rawVariables: readVariables(record.variables) }
}

/** Variables as an object of name → value, from an object or a list of `{name, value}`. */
export function readVariables(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null || raw === '') return {}
  if (Array.isArray(raw)) {
    // `[{name, value}]`, the shape of the change-variables call, is also accepted here.
    if (raw.every((v) => typeof v === 'object' && v !== null && 'name' in v)) {
      return Object.fromEntries(raw.map((v: { name: unknown; value?: unknown }) => [String(v.name), v.value]))
    }
    if (raw.length === 0) return {}
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw rejection('shape', 'Argument emails.*.variables is invalid: give an object of variable name to value')
  }
  return raw as Record<string, unknown>
}
