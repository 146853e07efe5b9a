// Who a Viber campaign goes to, and what each message costs: the numbers typed in (`recipients`, up to 1000) or a
// list's active numbers, less the account's Viber blacklist; each priced by its country (TIDINGS_VIBER_PRICES).
import * as booksRepo from '../../storage/repos/address-books.js'
import { sendableNumbersOf } from '../../storage/repos/list-phones.js'
import { findBlacklistedPhones } from '../../storage/repos/sms-blacklist.js'
import type { NewSmsMessage } from '../../storage/repos/message-queue.js'
import { countryOfPhone, parsePriceTable, partPriceMicros, type SmsPriceTable } from '../../lib/sms-prices.js'
import { normalizePhone } from '../../lib/phone-number.js'
import { AppError } from '../errors.js'
import type { Deps } from '../types.js'
import { MAX_RECIPIENTS } from './campaign-input.js'

export interface ViberRecipient {
  phone: string
  variables: string
  bookId: number | null
}

/** A priced recipient, stored as a message row (one part: a Viber message is never split). */
export type PricedViberMessage = NewSmsMessage

export async function audienceOfRecipients(deps: Deps, accountId: number, raw: readonly unknown[]): Promise<ViberRecipient[]> {
  if (raw.length > MAX_RECIPIENTS) throw new AppError('invalid', `Argument recipients may hold at most ${MAX_RECIPIENTS} numbers`)
  const phones = new Set<string>()
  for (const value of raw) {
    const phone = normalizePhone(value)
    if (!phone) throw new AppError('invalid', `Argument recipients: ${JSON.stringify(value).slice(0, 40)} is not a phone number`)
    phones.add(phone)
  }
  const blacklisted = await findBlacklistedPhones(deps.db, accountId, [...phones], 'viber_blacklist')
  return [...phones].filter((phone) => !blacklisted.has(phone)).map((phone) => ({ phone, variables: '{}', bookId: null }))
}

export async function audienceOfBook(deps: Deps, accountId: number, bookId: number): Promise<ViberRecipient[]> {
  const book = await booksRepo.findBook(deps.db, accountId, bookId)
  if (!book || book.status !== booksRepo.BOOK_STATUS.active) throw new AppError('not_found', 'Book not found', { publishedCode: 213 })
  return (await sendableNumbersOf(deps.db, accountId, bookId, 'viber_blacklist')).map((n) => ({ ...n, bookId }))
}

let cachedTable: { text: string; table: SmsPriceTable } | undefined

function priceTable(setting: string): SmsPriceTable {
  if (cachedTable?.text !== setting) cachedTable = { text: setting, table: parsePriceTable(setting, 'TIDINGS_VIBER_PRICES') }
  return cachedTable.table
}

export function priceViberRecipients(recipients: readonly ViberRecipient[], prices: string): { messages: PricedViberMessage[]; totalMicros: number } {
  const table = priceTable(prices)
  let totalMicros = 0
  const messages = recipients.map((r) => {
    const country = countryOfPhone(r.phone) ?? null
    const priceMicros = partPriceMicros(table, country ?? undefined, undefined)
    totalMicros += priceMicros
    return { phone: r.phone, variables: r.variables, bookId: r.bookId, country, parts: 1, priceMicros }
  })
  return { messages, totalMicros }
}
