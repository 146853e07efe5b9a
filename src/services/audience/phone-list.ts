// The `phones` of an SMS request: at most MAX_NUMBERS_PER_CALL items (one request must stay cheap; an import
// sends batches of 5,000, contact-import.ts), each a
// string or JSON number read as an E.164 number; the invalid ones are counted (`exceptions`), never kept.
import { normalizePhone } from '../../lib/phone-number.js'
import { AppError } from '../errors.js'

export const MAX_NUMBERS_PER_CALL = 10_000

/** 4xx when no number or too many are given. */
export function checkPhoneCount(count: number): void {
  if (count === 0) throw new AppError('invalid', 'Argument phones missing')
  if (count > MAX_NUMBERS_PER_CALL) throw new AppError('invalid', `Argument phones may hold at most ${MAX_NUMBERS_PER_CALL} numbers`)
}

/** The distinct stored forms of the valid numbers, and how many items were not valid numbers. */
export function readPhoneList(raw: readonly unknown[]): { phones: string[]; invalid: number } {
  checkPhoneCount(raw.length)
  const phones = new Set<string>()
  let invalid = 0
  for (const value of raw) {
    const phone = normalizePhone(value)
    if (phone) phones.add(phone)
    else invalid += 1
  }
  return { phones: [...phones], invalid }
}
