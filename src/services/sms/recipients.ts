// Who an SMS campaign goes to: the numbers given (POST /sms/send, the cost call) or a list's numbers
// (POST /sms/campaigns). Invalid and blacklisted numbers are `exceptions`, never recipients.
import { normalizePhone } from '../../lib/phone-number.js'
import * as booksRepo from '../../storage/repos/address-books.js'
import { countNumbersOf, sendableNumbersOf } from '../../storage/repos/list-phones.js'
import { findBlacklistedPhones } from '../../storage/repos/sms-blacklist.js'
import { AppError } from '../errors.js'
import type { Deps } from '../types.js'
import type { SmsRecipient } from './pricing.js'

export interface Audience {
  recipients: SmsRecipient[]
  exceptions: number
}

/** At most this many numbers in one /sms/send call (the Viber limit of API.md 8 is 1000; SMS states none). */
export const MAX_NUMBERS = 10_000

export async function audienceOfNumbers(deps: Deps, accountId: number, raw: readonly unknown[]): Promise<Audience> {
  if (raw.length > MAX_NUMBERS) throw new AppError('invalid', `Argument phones may hold at most ${MAX_NUMBERS} numbers`)
  const valid = new Set<string>()
  let invalid = 0
  for (const value of raw) {
    const phone = normalizePhone(value)
    if (phone) valid.add(phone)
    else invalid += 1
  }
  const blacklisted = await findBlacklistedPhones(deps.db, accountId, [...valid])
  const recipients = [...valid].filter((phone) => !blacklisted.has(phone)).map((phone) => ({ phone, variables: '{}', bookId: null }))
  return { recipients, exceptions: invalid + blacklisted.size }
}

export async function audienceOfList(deps: Deps, accountId: number, bookId: number): Promise<Audience> {
  const book = await booksRepo.findBook(deps.db, accountId, bookId)
  if (!book || book.status !== booksRepo.BOOK_STATUS.active) throw new AppError('not_found', 'Book not found', { publishedCode: 213 })
  const numbers = await sendableNumbersOf(deps.db, accountId, bookId)
  const all = await countNumbersOf(deps.db, bookId)
  return { recipients: numbers.map((n) => ({ phone: n.phone, variables: n.variables, bookId })), exceptions: all - numbers.length }
}
