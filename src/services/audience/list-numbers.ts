// The numbers of a mailing list (API.md 4.11): adding them (with variables), changing their variables,
// deleting them and reading one. Numbers are stored as E.164 digits (lib/phone-number.ts); an invalid one is
// counted in `exceptions` and never stored. Blacklisted numbers are stored like any other: campaigns skip
// them and the list counts show them as excluded.
import * as listPhonesRepo from '../../storage/repos/list-phones.js'
import * as booksRepo from '../../storage/repos/address-books.js'
import * as contactsRepo from '../../storage/repos/contacts.js'
import { normalizePhone } from '../../lib/phone-number.js'
import { checkPhoneCount, readPhoneList } from './phone-list.js'
import { AppError } from '../errors.js'
import { getLiveBook } from './addressbooks.js'
import type { ContactVariables } from './contact-variables.js'
import { readGivenVariables, typeVariables, valuesOf, type GivenVariable, type VariablesPatch } from './number-variables.js'
import type { Deps } from '../types.js'

export interface AddCounters {
  added: number
  exists: number
  exceptions: number
}

/** A number to store, with its variables as given. */
export interface NumberEntry {
  phone: unknown
  variables: readonly GivenVariable[]
}

export interface StoreOutcome extends AddCounters {
  /** Entries not stored (import mode), by their position in the call. */
  rejected: { index: number; reason: string }[]
}

export interface NumberInfo {
  status: number
  variables: ContactVariables
  createdAt: number
}

const phoneNotFound = () => new AppError('not_found', 'Phone number not found in the book')

/** The status numbers get when added: New under TIDINGS_CONTACT_ACTIVATION=manual, as email contacts do. */
export function initialNumberStatus(deps: Deps): number {
  return deps.config.contactActivation === 'manual' ? contactsRepo.CONTACT_STATUS.new : contactsRepo.CONTACT_STATUS.active
}

/** POST /sms/numbers: numbers without variables. */
export async function addNumbers(deps: Deps, accountId: number, bookId: number, phones: readonly unknown[]): Promise<AddCounters> {
  checkPhoneCount(phones.length)
  const { added, exists, exceptions } = await storeNumbers(deps, accountId, bookId, phones.map((phone) => ({ phone, variables: [] })), 'api')
  return { added, exists, exceptions }
}

/** POST /sms/numbers/variables: an object of number → its variables; numbers already in the list get them merged. */
export async function addNumbersWithVariables(deps: Deps, accountId: number, bookId: number, phones: Record<string, unknown>): Promise<AddCounters> {
  const entries = Object.entries(phones).map(([phone, variables]) => ({ phone, variables: readGivenVariables(variables, `phones.${phone}`) }))
  checkPhoneCount(entries.length)
  const { added, exists, exceptions } = await storeNumbers(deps, accountId, bookId, entries, 'api')
  return { added, exists, exceptions }
}

/**
 * Adds numbers to the list, or merges the variables given into those it has. In `api` mode a bad variable
 * refuses the whole call (nothing is stored); in `import` mode it only leaves its entry out, reported.
 */
export async function storeNumbers(deps: Deps, accountId: number, bookId: number, entries: readonly NumberEntry[], mode: 'api' | 'import'): Promise<StoreOutcome> {
  await getLiveBook(deps, accountId, bookId)
  return deps.db.transaction().execute(async (tx) => {
    const known = new Map((await booksRepo.listBookVariables(tx, bookId)).map((v) => [v.name, v.type]))
    const newVariables: { name: string; type: string }[] = []
    const patches = new Map<string, VariablesPatch>()
    const outcome: StoreOutcome = { added: 0, exists: 0, exceptions: 0, rejected: [] }
    const firstSeen: string[] = []
    entries.forEach((entry, index) => {
      const phone = normalizePhone(entry.phone)
      if (!phone) {
        outcome.exceptions++
        outcome.rejected.push({ index, reason: `"${String(entry.phone)}" is not a valid phone number` })
        return
      }
      let typed
      try {
        typed = typeVariables(entry.variables, known)
      } catch (err) {
        if (mode === 'api' || !(err instanceof AppError)) throw err
        outcome.exceptions++
        outcome.rejected.push({ index, reason: err.message })
        return
      }
      for (const v of typed.newVariables) known.set(v.name, v.type)
      newVariables.push(...typed.newVariables)
      const earlier = patches.get(phone)
      if (!earlier) firstSeen.push(phone)
      patches.set(phone, { ...earlier, ...typed.patch })
    })
    const now = deps.now()
    await contactsRepo.declareVariables(tx, bookId, newVariables, now)
    const status = initialNumberStatus(deps)
    const scope = { accountId, bookId, now }
    const added = await listPhonesRepo.insertNewNumbers(tx, {
      ...scope,
      numbers: firstSeen.map((phone) => ({ phone, status, variables: JSON.stringify(valuesOf(patches.get(phone)!)) })),
    })
    const changes = firstSeen.filter((phone) => !added.has(phone) && Object.keys(patches.get(phone)!).length > 0)
    await listPhonesRepo.mergeVariables(tx, { ...scope, changes: changes.map((phone) => ({ phone, patch: JSON.stringify(patches.get(phone)) })) })
    outcome.added = added.size
    outcome.exists = entries.length - outcome.exceptions - added.size
    return outcome
  })
}

/** PUT /sms/numbers: the same variables merged into each of `phones` the list has; returns how many changed. */
export async function updateNumbersVariables(deps: Deps, accountId: number, bookId: number, rawPhones: readonly unknown[], rawVariables: unknown): Promise<number> {
  const { phones } = readPhoneList(rawPhones)
  const given = readGivenVariables(rawVariables, 'variables')
  if (given.length === 0) throw new AppError('invalid', 'Argument variables missing')
  await getLiveBook(deps, accountId, bookId)
  return deps.db.transaction().execute(async (tx) => {
    const known = new Map((await booksRepo.listBookVariables(tx, bookId)).map((v) => [v.name, v.type]))
    const typed = typeVariables(given, known)
    const now = deps.now()
    await contactsRepo.declareVariables(tx, bookId, typed.newVariables, now)
    const patch = JSON.stringify(typed.patch)
    return listPhonesRepo.mergeVariables(tx, { accountId, bookId, now, changes: phones.map((phone) => ({ phone, patch })) })
  })
}

/** POST /addressbooks/{id}/phones/variable: variables of one number of the list. */
export async function updateNumberVariables(deps: Deps, accountId: number, bookId: number, rawPhone: unknown, rawVariables: unknown): Promise<void> {
  const phone = normalizePhone(rawPhone)
  if (!phone) throw new AppError('invalid', 'Phone is not valid')
  const given = readGivenVariables(rawVariables, 'variables')
  if (given.length === 0) throw new AppError('invalid', 'Argument variables missing')
  await getLiveBook(deps, accountId, bookId)
  await deps.db.transaction().execute(async (tx) => {
    const known = new Map((await booksRepo.listBookVariables(tx, bookId)).map((v) => [v.name, v.type]))
    const typed = typeVariables(given, known)
    const now = deps.now()
    const changed = await listPhonesRepo.mergeVariables(tx, { accountId, bookId, now, changes: [{ phone, patch: JSON.stringify(typed.patch) }] })
    if (changed === 0) throw phoneNotFound()
    await contactsRepo.declareVariables(tx, bookId, typed.newVariables, now)
  })
}

/** DELETE /sms/numbers: returns how many of `phones` the list had. */
export async function deleteNumbers(deps: Deps, accountId: number, bookId: number, rawPhones: readonly unknown[]): Promise<number> {
  const { phones } = readPhoneList(rawPhones)
  await getLiveBook(deps, accountId, bookId)
  return listPhonesRepo.deleteNumbers(deps.db, { accountId, bookId, phones })
}

/** GET /sms/numbers/info/{book}/{phone}: one number of the list. */
export async function getNumberInfo(deps: Deps, accountId: number, bookId: number, rawPhone: string): Promise<NumberInfo> {
  const phone = normalizePhone(rawPhone)
  if (!phone) throw new AppError('invalid', 'Phone is not valid')
  await getLiveBook(deps, accountId, bookId)
  const found = await listPhonesRepo.findNumber(deps.db, { accountId, bookId, phone })
  if (!found) throw phoneNotFound()
  return { status: found.status, variables: JSON.parse(found.variables) as ContactVariables, createdAt: found.createdAt }
}
