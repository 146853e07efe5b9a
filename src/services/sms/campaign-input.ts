// The body of POST /sms/campaigns and /sms/send (API.md 4.11.1, COMPAT.md "SMS and Viber" 6–10) turned into
// a campaign's parts; each failure names its argument.
import { parseWireDate } from '../../lib/wire-date.js'
import type { SmsRoute } from '../../lib/sms-prices.js'
import { AppError } from '../errors.js'
import { isValidSenderId } from './senders.js'

export interface SmsCampaignInput {
  sender: string
  body: string
  addressBookId?: number
  phones?: unknown[]
  route?: Record<string, string>
  date?: string
  emulate?: boolean
  transliterate?: boolean
  use_dynamic_list?: boolean
  stat_link_tracking?: boolean
  stat_link_need_protocol?: boolean
}

/** What a campaign keeps of its channel's settings, in `campaigns.channel_options`. */
export interface SmsCampaignOptions {
  /** Country code → route */
  route: Record<string, SmsRoute>
  linkTracking: boolean
  /** Tracked links shown with `https://` (stat_link_need_protocol); without it they are shorter. */
  linkProtocol: boolean
  /** Characters GSM-7 lacks written in Latin letters (transliteration.ts) */
  transliterate: boolean
}

/** The longest text accepted: 10 UCS-2 parts (API.md is silent; operators concatenate at most 6–10). */
const MAX_BODY = 670

const invalid = (message: string) => new AppError('invalid', message)

export function senderOf(input: { sender?: string }): string {
  const sender = input.sender?.trim() ?? ''
  if (!sender) throw invalid('Argument sender is missing')
  if (!isValidSenderId(sender)) throw invalid(`Argument sender "${sender}" is not valid: up to 11 letters and digits, or a number`)
  return sender
}

export function bodyOf(input: { body?: string }): string {
  const body = input.body ?? ''
  if (body.trim() === '') throw invalid('Argument body is missing')
  if (body.length > MAX_BODY) throw invalid(`Argument body is too long: at most ${MAX_BODY} characters`)
  return body
}

/** `{"UA": "national"}`; a country code must be two letters and a route one of the two (API.md 4.11.1). */
export function routeOf(input: { route?: Record<string, string> }): Record<string, SmsRoute> {
  const out: Record<string, SmsRoute> = {}
  for (const [country, route] of Object.entries(input.route ?? {})) {
    if (!/^[A-Za-z]{2}$/.test(country)) throw invalid(`Argument route: "${country}" is not a country code`)
    if (route !== 'national' && route !== 'international') throw invalid(`Argument route: the route of ${country} must be national or international`)
    out[country.toUpperCase()] = route
  }
  return out
}

/** COMPAT.md "SMS and Viber" 10: no date, the Go SDK's zero date or a time already past all mean "now". */
export function sendTimeOf(date: string | undefined, now: number): { sendAt: number; scheduled: boolean } {
  if (date === undefined) return { sendAt: now, scheduled: false }
  const at = parseWireDate(date)
  if (at === undefined) throw invalid('Argument date must be a date and time as YYYY-MM-DD HH:MM:SS')
  return at > now ? { sendAt: at, scheduled: true } : { sendAt: now, scheduled: false }
}

export function optionsOf(input: SmsCampaignInput): SmsCampaignOptions {
  return { route: routeOf(input), linkTracking: input.stat_link_tracking === true, linkProtocol: input.stat_link_need_protocol === true, transliterate: input.transliterate === true }
}

export function readOptions(json: string): SmsCampaignOptions {
  const parsed = JSON.parse(json) as Partial<SmsCampaignOptions>
  return { route: parsed.route ?? {}, linkTracking: parsed.linkTracking === true, linkProtocol: parsed.linkProtocol === true, transliterate: parsed.transliterate === true }
}
