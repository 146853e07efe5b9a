// Who an SMS campaign goes to: the numbers given (POST /sms/send, the cost call) or a list's numbers
// (POST /sms/campaigns). Invalid and blacklisted numbers are `exceptions`, never recipients.
import * as booksRepo from '../../storage/repos/address-books.js'
import { countNumbersOf, sendableNumbersOf } from '../../storage/repos/list-phones.js'
import { findBlacklistedPhones } from '../../storage/repos/sms-blacklist.js'
import { AppError } from '../errors.js'
import type { Deps } from '../types.js'
import type { SmsRecipient } from './pricing.js'
import { readPhoneList } from '../audience/phone-list.js'

export interface Audience {
  recipients: SmsRecipient[]
  exceptions: number
}

export async function audienceOfNumbers(deps: Deps, accountId: number, raw: readonly unknown[]): Promise<Audience> {
  const { phones, invalid } = readPhoneList(raw)
  const blacklisted = await findBlacklistedPhones(deps.db, accountId, phones)
  const recipients = phones.filter((phone) => !blacklisted.has(phone)).map((phone) => ({ phone, variables: '{}', bookId: null }))
  return { recipients, exceptions: invalid + blacklisted.size }
}

export async function audienceOfList(deps: Deps, accountId: number, bookId: number): Promise<Audience> {
  const book = await booksRepo.findBook(deps.db, accountId, bookId)
  if (!book || book.status !== booksRepo.BOOK_STATUS.active) throw new AppError('not_found', 'Book not found', { publishedCode: 213 })
  const numbers = await sendableNumbersOf(deps.db, accountId, bookId)
  const all = await countNumbersOf(deps.db, bookId)
  return { recipients: numbers.map((n) => ({ phone: n.phone, variables: n.variables, bookId })), exceptions: all - numbers.length }
}
