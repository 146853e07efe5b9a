// Phone numbers as the service stores them: international digits without the plus (E.164), the way
// SendPulse's API shows them (`380631234567`). Clients send strings or numbers, with or without `+`.
import type * as PhoneNumbers from 'libphonenumber-js/max'
import { lazyRequire } from './lazy-require.js'

/** libphonenumber-js with its full metadata (~10 MB), loaded by the first number read, not at start. */
export const phoneNumbers = lazyRequire<typeof PhoneNumbers>('libphonenumber-js/max')

/** The stored digits of a valid international number, or undefined. */
export function normalizePhone(raw: unknown): string | undefined {
  if (typeof raw !== 'number' && typeof raw !== 'string') return undefined
  const text = String(raw).trim().replace(/[\s().-]/g, '')
  if (!/^\+?\d{6,16}$/.test(text)) return undefined
  const parsed = phoneNumbers().parsePhoneNumberFromString(text.startsWith('+') ? text : `+${text}`)
  return parsed?.isValid() ? parsed.number.slice(1) : undefined
}
