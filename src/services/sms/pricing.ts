// What an SMS campaign costs: each recipient's text (the body with their variables) counted in parts as
// handsets count them (delivery/sms/text.ts), times the price of a part for the number's country and route
// (TIDINGS_SMS_PRICES). The cost call and the write-off at creation use this one calculation.
import { countryOfPhone, parseSmsPrices, partPriceMicros, type SmsPriceTable, type SmsRoute } from '../../lib/sms-prices.js'
import { segmentsOf } from '../../delivery/sms/text.js'
import type { NewSmsMessage } from '../../storage/repos/message-queue.js'
import { smsTextOf } from './sms-text.js'

export interface SmsRecipient {
  phone: string
  /** JSON object of the number's variables */
  variables: string
  bookId: number | null
}

let cachedTable: { text: string; table: SmsPriceTable } | undefined

function priceTable(setting: string): SmsPriceTable {
  if (cachedTable?.text !== setting) cachedTable = { text: setting, table: parseSmsPrices(setting) }
  return cachedTable.table
}

/** Every recipient priced; the parts of one text are counted once however many numbers share it. */
export function priceRecipients(
  recipients: readonly SmsRecipient[],
  body: string,
  pricing: { prices: string; route: Record<string, SmsRoute>; transliterate: boolean },
): { messages: NewSmsMessage[]; totalMicros: number } {
  const table = priceTable(pricing.prices)
  const textOf = smsTextOf(body, pricing)
  const partsOfText = new Map<string, number>()
  const messages: NewSmsMessage[] = []
  let totalMicros = 0
  for (const r of recipients) {
    const text = textOf(JSON.parse(r.variables) as Record<string, unknown>)
    let parts = partsOfText.get(text)
    if (parts === undefined) {
      parts = segmentsOf(text).segments
      if (partsOfText.size < 10_000) partsOfText.set(text, parts)
    }
    const country = countryOfPhone(r.phone) ?? null
    const priceMicros = parts * partPriceMicros(table, country ?? undefined, country ? pricing.route[country] : undefined)
    totalMicros += priceMicros
    messages.push({ phone: r.phone, variables: r.variables, bookId: r.bookId, country, parts, priceMicros })
  }
  return { messages, totalMicros }
}
