// The body of POST /viber and /viber/update (API.md 4.10.1, 8; COMPAT.md "SMS and Viber" 10–11) turned into a
// Viber campaign's settings. Every rule failure is a 422 naming its argument; nothing is stored before all pass.
import { parseWireDate } from '../../lib/wire-date.js'
import { AppError } from '../errors.js'

/** The request as the route schema delivers it: null, "" and the Go SDK's zero date already mean "not given". */
export interface ViberCampaignInput {
  task_name?: string
  message_type?: number
  sender_id?: number
  message_live_time?: number
  send_date?: string
  /** The Go SDK's name for send_date */
  sent_date?: string
  address_book?: number
  recipients?: unknown[]
  message?: string
  stretch_time?: number
  additional?: {
    button?: { text?: string; link?: string }
    image?: { link?: string }
    resend_sms?: { status?: boolean; sms_text?: string; sms_sender_name?: string }
  }
  /** POST /viber/update (Go) names the button and image flat */
  button_text?: string
  button_link?: string
  image_link?: string
}

export const MESSAGE_TYPE = { promo: 2, system: 3 } as const

/** What a Viber campaign keeps in `campaigns.channel_options`. */
export interface ViberCampaignOptions {
  messageType: 2 | 3
  senderId: number
  liveSeconds: number
  stretchSeconds: number
  button: { text: string; link: string } | null
  imageUrl: string | null
  /** SMS sent instead where Viber did not deliver (resend_sms) */
  resendSms: { text: string; sender: string } | null
}

/** API.md 8 */
const MAX_MESSAGE = 1000
const MIN_LIVE_SECONDS = 60
const MAX_LIVE_SECONDS = 86_400
const MAX_STRETCH_HOURS = 5
export const MAX_RECIPIENTS = 1000
/** The longest fallback SMS: 10 UCS-2 parts, as for SMS campaigns. */
const MAX_SMS_TEXT = 670
const MAX_BUTTON_TEXT = 30
const MAX_URL = 2000

const invalid = (message: string) => new AppError('invalid', message)

/** The settings of a create, or of an update merged over the campaign's current ones. */
export function viberOptionsOf(input: ViberCampaignInput): { options: ViberCampaignOptions; message: string } {
  // 0 is the Go SDK's "not given" for each of these (COMPAT.md "SMS and Viber" 11).
  const messageType = input.message_type || undefined
  if (messageType === undefined) throw invalid('Argument message_type is missing')
  if (messageType !== MESSAGE_TYPE.promo && messageType !== MESSAGE_TYPE.system) throw invalid('Argument message_type must be 2 (promo) or 3 (system)')
  const senderId = input.sender_id || undefined
  if (senderId === undefined) throw invalid('Argument sender_id is missing')
  const live = input.message_live_time || undefined
  if (live === undefined) throw invalid('Argument message_live_time is missing')
  if (!Number.isInteger(live) || live < MIN_LIVE_SECONDS || live > MAX_LIVE_SECONDS) {
    throw invalid(`Argument message_live_time must be a whole number of seconds from ${MIN_LIVE_SECONDS} to ${MAX_LIVE_SECONDS}`)
  }
  const stretch = input.stretch_time ?? 0
  if (!(stretch >= 0 && stretch <= MAX_STRETCH_HOURS)) throw invalid(`Argument stretch_time must be from 0 to ${MAX_STRETCH_HOURS} hours`)
  const message = input.message ?? ''
  if ([...message].length > MAX_MESSAGE) throw invalid(`Argument message is too long: at most ${MAX_MESSAGE} characters`)
  const button = buttonOf(input)
  const imageUrl = imageOf(input)
  checkShape(messageType, message, button, imageUrl)
  return {
    message,
    options: { messageType, senderId, liveSeconds: live, stretchSeconds: Math.round(stretch * 3600), button, imageUrl, resendSms: resendSmsOf(input) },
  }
}

function buttonOf(input: ViberCampaignInput): ViberCampaignOptions['button'] {
  const text = input.additional?.button?.text ?? input.button_text
  const link = input.additional?.button?.link ?? input.button_link
  if (text === undefined && link === undefined) return null
  if (text === undefined) throw invalid('Argument additional.button.text is missing: a button needs a text and a link')
  if (link === undefined) throw invalid('Argument additional.button.link is missing: a button needs a text and a link')
  if ([...text].length > MAX_BUTTON_TEXT) throw invalid(`Argument additional.button.text is too long: at most ${MAX_BUTTON_TEXT} characters`)
  return { text, link: webLink('additional.button.link', link) }
}

function imageOf(input: ViberCampaignInput): string | null {
  const link = input.additional?.image?.link ?? input.image_link
  return link === undefined ? null : webLink('additional.image.link', link)
}

function webLink(name: string, value: string): string {
  let url: URL | undefined
  try {
    url = new URL(value)
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || value.length > MAX_URL) throw invalid(`Argument ${name} must be an http(s) link of at most ${MAX_URL} characters`)
  return value
}

/**
 * The four shapes API.md 4.10.1 allows: text only (promo or system); promo with text, button and image; promo with
 * text and button; promo with an image only.
 */
function checkShape(type: number, message: string, button: ViberCampaignOptions['button'], image: string | null): void {
  const text = message.trim() !== ''
  if (type === MESSAGE_TYPE.system) {
    if (button || image) throw invalid('Argument additional: a system message (message_type 3) is text only, without a button or an image')
    if (!text) throw invalid('Argument message is missing')
    return
  }
  if (!text && !image) throw invalid('Argument message is missing: give a text, or an image')
  if (!text && button) throw invalid('Argument additional.button: a button goes with a text (an image-only message has no button)')
  if (text && image && !button) throw invalid('Argument additional.button is missing: a text with an image needs a button (text + button + image)')
}

function resendSmsOf(input: ViberCampaignInput): ViberCampaignOptions['resendSms'] {
  const resend = input.additional?.resend_sms
  if (resend?.status !== true) return null
  const text = resend.sms_text ?? ''
  if (text === '') throw invalid('Argument additional.resend_sms.sms_text is missing: the SMS sent where Viber did not deliver')
  if (text.length > MAX_SMS_TEXT) throw invalid(`Argument additional.resend_sms.sms_text is too long: at most ${MAX_SMS_TEXT} characters`)
  const sender = resend.sms_sender_name ?? ''
  if (sender === '') throw invalid('Argument additional.resend_sms.sms_sender_name is missing: an active SMS sender ID of the account')
  return { text, sender }
}

/** `now`, nothing, the Go SDK's zero date or a time already past: now; otherwise that time (UTC). */
export function viberSendTimeOf(input: ViberCampaignInput, now: number): { sendAt: number; scheduled: boolean } {
  const given = input.send_date ?? input.sent_date
  if (given === undefined || given.toLowerCase() === 'now') return { sendAt: now, scheduled: false }
  const at = parseWireDate(given)
  if (at === undefined) throw invalid('Argument send_date must be "now" or a date and time as YYYY-MM-DD HH:MM:SS')
  return at > now ? { sendAt: at, scheduled: true } : { sendAt: now, scheduled: false }
}

export function readViberOptions(json: string): ViberCampaignOptions {
  return JSON.parse(json) as ViberCampaignOptions
}
