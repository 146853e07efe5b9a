// Contacts of a mailing list (API.md 4.1, 4.1.1): adding (single opt-in here, double opt-in through
// confirmations), listing, reading, deleting, unsubscribing, variables and phone.
import type { Kysely } from 'kysely'
import type { Database } from '../../storage/tables.js'
import * as contactsRepo from '../../storage/repos/contacts.js'
import { upsertContacts, type UpsertedRows } from '../../storage/repos/contact-upserts.js'
import { recordContactEvents } from '../events/events.js'
import * as booksRepo from '../../storage/repos/address-books.js'
import { distinctAddresses, normalizeEmail } from '../../lib/email-address.js'
import { normalizePhone } from '../../lib/phone-number.js'
import { AppError } from '../errors.js'
import { getLiveBook } from './addressbooks.js'
import * as blacklistRepo from '../../storage/repos/blacklist.js'
import { CONFIRMATION_LANGS, queueConfirmations, readConfirmationToken, type ConfirmationLang } from './confirmation-email.js'
import { requireActiveSender } from '../email/senders.js'
import { requirePlan } from '../accounts/plans.js'
import { getTemplate } from '../email/templates.js'
import { compileTemplate, type Render } from '../../lib/render.js'
import { assertTagsExist } from './tags.js'
import * as tagsRepo from '../../storage/repos/tags.js'
import type { Mailbox } from '../email/outbox.js'
import { columnsFor, prepareContacts, readVariables, type ContactItems, type PreparedColumns, type Rejected } from './contact-input.js'
import { isDate, scalarValue, variableNameProblem, type ContactVariables } from './contact-variables.js'
import * as pageCursors from './page-cursors.js'
import { addNumbersOfContacts, confirmNumberOfContact } from './contact-numbers.js'
import type { Deps, Page } from '../types.js'

export const MAX_EMAILS_PER_CHANGE = 100

export interface Contact {
  id: number
  bookId: number
  email: string
  status: number
  phone: string | null
  variables: ContactVariables
  createdAt: number
  source: string
}

/** Double opt-in (API.md 4.1.1): new contacts get a confirmation email and wait in status 2. */
export interface DoubleOptIn {
  confirmation?: string
  senderEmail?: string
  lang?: string
  templateId?: string | number
}

export interface AddOptions {
  source: 'api' | 'import'
  doubleOptIn?: DoubleOptIn
  /** Tags (ids of the account's tags) pinned to every address added (Pro plan). */
  tagIds?: readonly number[]
}

export interface AddSummary {
  added: number
  updated: number
  rejected: Rejected[]
  /** Addresses on the account's blacklist: never added, since nothing may be sent to them. */
  blacklisted: string[]
  /** The list's variables once these contacts are stored: name → type. */
  variableTypes: ReadonlyMap<string, string>
}

const emailNotFound = () => new AppError('invalid', 'Email address not found', { publishedCode: 502 })

/**
 * Adds contacts to a list or updates the ones already in it (API.md 4.1.1). Invalid addresses are skipped
 * and reported; any other bad item (a wrong shape, a value that breaks its variable's type) rejects the
 * whole call before anything is written. `items` are as sent, or prepared already on a worker thread.
 */
export async function addContacts(deps: Deps, accountId: number, bookId: number, items: ContactItems, options: AddOptions): Promise<AddSummary> {
  const book = await getLiveBook(deps, accountId, bookId)
  // Read before the transaction: on SQLite the transaction holds the only connection.
  const optIn = options.doubleOptIn && (await checkDoubleOptIn(deps, accountId, options.doubleOptIn))
  const tagIds = options.tagIds ?? []
  if (tagIds.length > 0) {
    await requirePlan(deps, accountId, 'tags')
    await assertTagsExist(deps, accountId, tagIds)
  }
  return deps.db.transaction().execute(async (tx) => {
    const types = new Map((await booksRepo.listBookVariables(tx, bookId)).map((v) => [v.name, v.type]))
    const batch = columnsFor(items, types)
    const fatal = batch.rejected.find((r) => r.kind !== 'address')
    if (fatal && options.source === 'api') throw new AppError('invalid', fatal.reason)
    if (batch.emails.length === 0) {
      throw new AppError('invalid', `Argument emails is invalid: ${batch.rejected.map((r) => r.reason).join('; ') || 'no address given'}`)
    }
    // The prepared addresses are in stored form already: the repository compares them as they are.
    const blacklisted = await blacklistRepo.findBlacklistedEmails(tx, accountId, batch.emails)
    const accepted = blacklisted.size === 0 ? batch : withoutAddresses(batch, blacklisted)
    const now = deps.now()
    await contactsRepo.declareVariables(tx, bookId, batch.newVariables, now)
    const stored = await upsertContacts(tx, {
      accountId,
      bookId,
      status: optIn ? contactsRepo.CONTACT_STATUS.confirmationRequested : initialStatus(deps),
      source: options.source,
      now,
      contacts: accepted,
    })
    if (tagIds.length > 0) await tagsRepo.pinTagsToEmails(tx, { accountId, tagIds, emails: accepted.emails, now })
    await addNumbersOfNew(tx, { accountId, bookId, now, accepted, stored })
    if (stored.added > 0) {
      const added = () => positionsWhere(stored.inserted).map((i) => ({ email: accepted.emails[i]!, bookId, variables: variablesAt(accepted, i) }))
      await recordContactEvents(tx, 'new_emails', accountId, added, now)
    }
    if (optIn) {
      // New contacts and those still unconfirmed get the email; confirmed or unsubscribed ones are left alone.
      const awaiting = positionsWhere(stored.inserted.map((inserted, i) => inserted || stored.statuses[i] === contactsRepo.CONTACT_STATUS.confirmationRequested)).map(
        (i) => ({ id: stored.ids[i]!, email: accepted.emails[i]!, status: stored.statuses[i]!, variables: variablesAt(accepted, i) }),
      )
      await queueConfirmations(tx, deps, { accountId, bookName: book.name, sender: optIn.sender, lang: optIn.lang, template: optIn.template, contacts: awaiting })
    }
    for (const v of batch.newVariables) types.set(v.name, v.type)
    return { added: stored.added, updated: accepted.emails.length - stored.added, rejected: batch.rejected, blacklisted: [...blacklisted], variableTypes: types }
  })
}

/**
 * The variable types contacts are prepared against before addContacts (api/routes/add-contacts-body.ts), or
 * undefined when the list is not a live list of the account (addContacts then answers why).
 */
export async function variableTypesForAdding(deps: Deps, accountId: number, bookId: number): Promise<Map<string, string> | undefined> {
  const book = await booksRepo.findBook(deps.db, accountId, bookId)
  if (!book || book.status === booksRepo.BOOK_STATUS.deleted) return undefined
  return new Map((await booksRepo.listBookVariables(deps.db, bookId)).map((v) => [v.name, v.type]))
}

/** The batch without the contacts at these addresses. */
function withoutAddresses(batch: PreparedColumns, addresses: ReadonlySet<string>): PreparedColumns {
  const kept: PreparedColumns = { ...batch, emails: [], phones: [], variables: [] }
  batch.emails.forEach((email, i) => {
    if (addresses.has(email)) return
    kept.emails.push(email)
    kept.phones.push(batch.phones[i]!)
    kept.variables.push(batch.variables[i]!)
  })
  return kept
}

function positionsWhere(flags: readonly boolean[]): number[] {
  const positions: number[] = []
  flags.forEach((flag, i) => flag && positions.push(i))
  return positions
}

function variablesAt(batch: PreparedColumns, i: number): ContactVariables {
  return JSON.parse(batch.variables[i]!) as ContactVariables
}

/** The phones of the contacts just stored become numbers of the list too; a batch without phones costs nothing. */
async function addNumbersOfNew(
  tx: Kysely<Database>,
  batch: { accountId: number; bookId: number; now: number; accepted: PreparedColumns; stored: UpsertedRows },
): Promise<void> {
  const { accepted, stored } = batch
  const contacts = accepted.phones.flatMap((phone, i) => (phone === null ? [] : [{ phone, status: stored.statuses[i]!, variables: variablesAt(accepted, i) }]))
  if (contacts.length === 0) return
  await addNumbersOfContacts(tx, { accountId: batch.accountId, bookId: batch.bookId, now: batch.now, contacts })
}

function initialStatus(deps: Deps): number {
  return deps.config.contactActivation === 'manual' ? contactsRepo.CONTACT_STATUS.new : contactsRepo.CONTACT_STATUS.active
}

async function checkDoubleOptIn(deps: Deps, accountId: number, optIn: DoubleOptIn): Promise<{ sender: Mailbox; lang: ConfirmationLang; template?: Render }> {
  if (optIn.confirmation !== 'force') throw new AppError('invalid', 'Argument confirmation is invalid')
  if (!optIn.senderEmail) throw new AppError('invalid', 'Argument sender_email missing')
  if (!optIn.lang) throw new AppError('invalid', 'Argument message_lang missing')
  const lang = CONFIRMATION_LANGS.find((l) => l === optIn.lang)
  if (!lang) throw new AppError('invalid', `Argument message_lang is invalid: use one of ${CONFIRMATION_LANGS.join(', ')}`)
  const template = optIn.templateId === undefined ? undefined : await confirmationTemplate(deps, accountId, optIn.templateId)
  return { sender: await requireActiveSender(deps, accountId, optIn.senderEmail), lang, template }
}

async function confirmationTemplate(deps: Deps, accountId: number, templateId: string | number): Promise<Render> {
  const template = await getTemplate(deps, accountId, templateId).catch((err: unknown) => {
    throw err instanceof AppError && err.code === 'not_found' ? new AppError('invalid', 'Argument template_id is invalid: no such template', { cause: err }) : err
  })
  const render = compileTemplate(template.body)
  if (render instanceof Error) throw new AppError('invalid', `Argument template_id is invalid: the template does not render (${render.message.split('\n')[0]})`)
  return render
}

/** Where a confirmation link stands: `pending` until its button is pressed (a GET must not confirm: mail scanners follow links). */
export type ConfirmationState = 'pending' | 'already_used' | 'expired' | 'unknown'
export type Confirmed = Exclude<ConfirmationState, 'pending'> | 'confirmed'

/** What following a confirmation link would do, changing nothing. */
export async function confirmationState(deps: Deps, token: string): Promise<ConfirmationState> {
  return (await inspectConfirmation(deps, token)).state
}

/** Confirms through a link (its button's POST): the contact awaiting confirmation becomes Active. */
export async function confirmSubscription(deps: Deps, token: string): Promise<Confirmed> {
  const { state, contactId } = await inspectConfirmation(deps, token)
  if (state !== 'pending') return state
  return deps.db.transaction().execute(async (tx) => {
    const now = deps.now()
    if (!(await contactsRepo.confirmContact(tx, contactId, now))) return 'already_used'
    const contact = await contactsRepo.findContactById(tx, contactId)
    if (contact) await confirmNumberOfContact(tx, contact, now)
    return 'confirmed'
  })
}

async function inspectConfirmation(deps: Deps, token: string): Promise<{ state: ConfirmationState; contactId: number }> {
  const read = await readConfirmationToken(deps, token)
  const contact = read === undefined ? undefined : await contactsRepo.findContactById(deps.db, read.contactId)
  if (!read || !contact) return { state: 'unknown', contactId: 0 }
  // A used link says so even when it is old: that tells its reader more than "expired".
  if (contact.status !== contactsRepo.CONTACT_STATUS.confirmationRequested) return { state: 'already_used', contactId: contact.id }
  return { state: read.expired ? 'expired' : 'pending', contactId: contact.id }
}

export interface ListFilter {
  active?: boolean
  notActive?: boolean
  order?: 'asc' | 'desc'
}

/** API.md 4.1: `active` means Active and New contacts, `not_active` every other status. */
export async function listContacts(deps: Deps, accountId: number, bookId: number, filter: ListFilter, page: Page): Promise<Contact[]> {
  const book = await getLiveBook(deps, accountId, bookId)
  const onlyActive = filter.active === true && filter.notActive !== true
  const onlyInactive = filter.notActive === true && filter.active !== true
  const order = filter.order ?? 'asc'
  const statuses = onlyActive ? 'active' : onlyInactive ? 'inactive' : 'all'
  const contactFilter = { bookId, statuses, order } as const
  // New contacts are appended, so only ascending pages keep their place while a list grows.
  if (order === 'desc') return (await contactsRepo.listContacts(deps.db, contactFilter, page)).map(toContact)
  const view = `${bookId}:${statuses}`
  const generation = book.contactsGeneration
  const afterId = page.offset === 0 ? undefined : pageCursors.knownStart(deps.db, view, page.offset, generation)
  const rows = await contactsRepo.listContacts(deps.db, contactFilter, { ...page, afterId })
  const [first, last] = [rows[0], rows.at(-1)]
  // Ids only grow, so "after first.id - 1" starts this same page again, and "after last.id" the next one.
  if (first && page.offset > 0) pageCursors.rememberStart(deps.db, view, page.offset, generation, first.id - 1)
  if (last && rows.length === page.limit) pageCursors.rememberStart(deps.db, view, page.offset + page.limit, generation, last.id)
  return rows.map(toContact)
}

export interface ContactWithTypes extends Contact {
  /** The list's variable types, to show each variable with its type. */
  types: ReadonlyMap<string, string>
}

export async function getContact(deps: Deps, accountId: number, bookId: number, rawEmail: string): Promise<ContactWithTypes> {
  await getLiveBook(deps, accountId, bookId)
  const email = normalizeEmail(rawEmail)
  const row = email && (await contactsRepo.findContact(deps.db, bookId, email))
  if (!row) throw new AppError('not_found', 'Email address not found', { publishedCode: 502 })
  const types = (await booksRepo.variableTypesOfBooks(deps.db, [bookId])).get(bookId) ?? new Map()
  return { ...toContact(row), types }
}

/** Valid, distinct addresses of a change request limited to 100 (API.md 8). */
function addressesOfChange(rawEmails: readonly unknown[]): string[] {
  if (rawEmails.length === 0) throw new AppError('invalid', 'No emails', { publishedCode: 303 })
  if (rawEmails.length > MAX_EMAILS_PER_CHANGE) {
    throw new AppError('invalid', `Limit is exceeded. Max count: ${MAX_EMAILS_PER_CHANGE}`)
  }
  return distinctAddresses(rawEmails)
}

export async function deleteContacts(deps: Deps, accountId: number, bookId: number, rawEmails: readonly unknown[]): Promise<number> {
  await getLiveBook(deps, accountId, bookId)
  const emails = addressesOfChange(rawEmails)
  return deps.db.transaction().execute(async (tx) => {
    const gone = await contactsRepo.deleteContacts(tx, bookId, emails)
    await recordContactEvents(tx, 'delete', accountId, gone, deps.now())
    return gone.length
  })
}

export async function unsubscribeContacts(deps: Deps, accountId: number, bookId: number, rawEmails: readonly unknown[]): Promise<number> {
  await getLiveBook(deps, accountId, bookId)
  const emails = addressesOfChange(rawEmails)
  const { unsubscribed } = contactsRepo.CONTACT_STATUS
  const now = deps.now()
  const changed = await deps.db.transaction().execute(async (tx) => {
    const left = await contactsRepo.setContactStatus(tx, { bookId, emails, status: unsubscribed, now, onlyFrom: [0, 1, 2, 3, 7, 14] })
    await recordContactEvents(tx, 'unsubscribe', accountId, left, now)
    return left.length
  })
  if (changed === 0) throw new AppError('invalid', 'Active emails not found')
  return changed
}

/** Sets variables of one contact (POST …/emails/variable): new values win, new variables are declared. */
export async function updateVariables(
  deps: Deps,
  accountId: number,
  bookId: number,
  rawEmail: string,
  rawVariables: unknown,
): Promise<void> {
  const variables = readVariables(rawVariables)
  await getLiveBook(deps, accountId, bookId)
  const email = normalizeEmail(rawEmail)
  if (!email) throw new AppError('invalid', 'Argument email is invalid')
  await deps.db.transaction().execute(async (tx) => {
    const contact = await contactsRepo.findContact(tx, bookId, email)
    if (!contact) throw emailNotFound()
    const types = new Map((await booksRepo.listBookVariables(tx, bookId)).map((v) => [v.name, v.type]))
    const batch = prepareContacts([{ email, variables }], types)
    const [problem] = batch.rejected
    if (problem) throw new AppError('invalid', problem.reason)
    const changed = batch.contacts[0]
    const merged: ContactVariables = { ...(JSON.parse(contact.variables) as ContactVariables), ...changed?.variables }
    // An empty value clears the variable (API.md 2.2: an empty variable is not shown).
    for (const [name, raw] of Object.entries(variables)) if (scalarValue(raw) === undefined) delete merged[name]
    const now = deps.now()
    await contactsRepo.declareVariables(tx, bookId, batch.newVariables, now)
    await contactsRepo.replaceVariables(tx, contact.id, JSON.stringify(merged), now)
    if (changed?.phone) {
      await contactsRepo.setPhone(tx, contact.id, changed.phone, now)
      await addNumbersOfContacts(tx, { accountId, bookId, now, contacts: [{ phone: changed.phone, status: contact.status, variables: merged }] })
    }
  })
}

export async function setPhone(deps: Deps, accountId: number, bookId: number, rawEmail: string, rawPhone: unknown): Promise<void> {
  await getLiveBook(deps, accountId, bookId)
  const email = normalizeEmail(rawEmail)
  if (!email) throw new AppError('invalid', 'Email is not valid', { publishedCode: 17 })
  const phone = normalizePhone(rawPhone)
  if (!phone) throw new AppError('invalid', 'Phone is not valid')
  await deps.db.transaction().execute(async (tx) => {
    const contact = await contactsRepo.findContact(tx, bookId, email)
    if (!contact) throw emailNotFound()
    const now = deps.now()
    await contactsRepo.setPhone(tx, contact.id, phone, now)
    const variables = JSON.parse(contact.variables) as ContactVariables
    await addNumbersOfContacts(tx, { accountId, bookId, now, contacts: [{ phone, status: contact.status, variables }] })
  })
}

/** Contacts whose variable `name` equals `value` (GET /addressbooks/{id}/variables/{name}/{value}). */
export async function findByVariable(deps: Deps, accountId: number, bookId: number, name: string, value: string, page: Page): Promise<Contact[]> {
  await getLiveBook(deps, accountId, bookId)
  if (variableNameProblem(name)) throw new AppError('invalid', 'Variable name is invalid')
  const type = (await booksRepo.variableTypesOfBooks(deps.db, [bookId])).get(bookId)?.get(name)
  if (!type) throw new AppError('not_found', 'Variable not found', { publishedCode: 299 })
  if ((type === 'date' && !isDate(value)) || (type === 'number' && !Number.isFinite(Number(value)))) {
    throw new AppError('invalid', 'Variable value wrong format')
  }
  // Numbers are stored as JSON numbers: `25.0` and `25` are the same number, shown as `25`.
  const searched = type === 'number' ? String(Number(value)) : value
  const rows = await contactsRepo.findContactsByVariable(deps.db, { bookId, name, value: searched }, page)
  return rows.map(toContact)
}

export function toContact(row: contactsRepo.ContactRow): Contact {
  return {
    id: row.id,
    bookId: row.bookId,
    email: row.email,
    status: row.status,
    phone: row.phone,
    variables: JSON.parse(row.variables) as ContactVariables,
    createdAt: row.createdAt,
    source: row.source,
  }
}
