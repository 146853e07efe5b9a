// The price of one SMS part by the number's country and route, from TIDINGS_SMS_PRICES
// (`default=0.02,UA=0.015,UA:international=0.03`): the most specific entry wins, country and route, then
// country, then `default`. Prices are in the account's currency units; kept as integer micro-units.
import { phoneNumbers } from './phone-number.js'
import { parseMicros } from './money.js'

export type SmsRoute = 'national' | 'international'

export interface SmsPriceTable {
  /** Keys `default`, `UA` or `UA:international`, upper-cased country codes */
  readonly entries: ReadonlyMap<string, number>
}

/** Reads TIDINGS_SMS_PRICES; throws naming the entry that is not `KEY=PRICE`. */
export function parseSmsPrices(text: string): SmsPriceTable {
  return parsePriceTable(text, 'TIDINGS_SMS_PRICES')
}

/** A price table by country (and route) in the same syntax: TIDINGS_SMS_PRICES, TIDINGS_VIBER_PRICES. */
export function parsePriceTable(text: string, setting: string): SmsPriceTable {
  const entries = new Map<string, number>()
  for (const part of text.split(',')) {
    if (part.trim() === '') continue
    const match = /^\s*(default|[A-Za-z]{2}(?::(?:national|international))?)\s*=\s*(\d{1,12}(?:\.\d{1,6})?)\s*$/.exec(part)
    if (!match) throw new Error(`${setting}: "${part.trim()}" is not KEY=PRICE (KEY: default, a country code such as UA, or UA:international)`)
    const key = match[1]! === 'default' ? 'default' : match[1]!.replace(/^[a-z]{2}/, (c) => c.toUpperCase())
    entries.set(key, parseMicros(match[2]!)!)
  }
  if (!entries.has('default')) entries.set('default', 0)
  return { entries }
}

/** The ISO 3166 country of stored E.164 digits; undefined for numbers of no country (e.g. +882). */
export function countryOfPhone(digits: string): string | undefined {
  return phoneNumbers().parsePhoneNumberFromString(`+${digits}`)?.country
}

/** Micro-units per part for a number of `country` sent on `route`. */
export function partPriceMicros(table: SmsPriceTable, country: string | undefined, route: SmsRoute | undefined): number {
  const { entries } = table
  if (country && route && entries.has(`${country}:${route}`)) return entries.get(`${country}:${route}`)!
  if (country && entries.has(country)) return entries.get(country)!
  return entries.get('default')!
}
