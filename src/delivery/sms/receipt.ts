// Delivery receipts as SMSCs send them: the text form of SMPP 3.4 Appendix B
// (`id:… sub:… dlvrd:… submit date:… done date:… stat:DELIVRD err:000 Text:…`), read as loosely as real SMSCs
// write it, and the receipted_message_id / message_state TLVs (§5.3.2.12, §5.3.2.35), which win when present.
import type { DeliveryReceipt } from './channel.js'

export type ReceiptState = DeliveryReceipt['state']

/** The fields of a receipt's text; only id and stat are required. */
export interface ReceiptText {
  id: string
  /** Upper case, as sent: DELIVRD, UNDELIV, … */
  stat: string
  err?: string
  sub?: string
  dlvrd?: string
  submitDate?: string
  doneDate?: string
  text?: string
}

// Field names followed by a colon: `submit date` is also written `submit_date`, any of them in any case, with
// spaces around the colon. `text:` comes last and takes the rest of the body, whatever it holds.
const FIELD_NAME = /\b(id|sub|dlvrd|submit[ _]date|done[ _]date|stat|err|text)\s*:/gi

/** The fields of a receipt text, or undefined when it has no id or no stat (not a receipt we can use). */
export function parseReceiptText(body: string): ReceiptText | undefined {
  const names = [...body.matchAll(FIELD_NAME)]
  const fields = new Map<string, string>()
  for (const [i, match] of names.entries()) {
    const name = match[1]!.toLowerCase().replace('_', ' ')
    const start = match.index + match[0].length
    if (name === 'text') {
      fields.set('text', body.slice(start).trim())
      break
    }
    // The value is the first word before the next field: `id: 0A1B  sub:001` gives `0A1B`.
    const value = body.slice(start, names[i + 1]?.index ?? body.length).trim().split(/\s+/)[0] ?? ''
    if (!fields.has(name) && value !== '') fields.set(name, value)
  }
  const id = fields.get('id')
  const stat = fields.get('stat')
  if (!id || !stat) return undefined
  return {
    id,
    stat: stat.toUpperCase(),
    err: fields.get('err'),
    sub: fields.get('sub'),
    dlvrd: fields.get('dlvrd'),
    submitDate: fields.get('submit date'),
    doneDate: fields.get('done date'),
    text: fields.get('text'),
  }
}

// By the first five letters: SMSCs write DELIVRD or DELIVERED, UNDELIV or UNDELIVERABLE, REJECTD or REJECTED.
const STATES_BY_STAT: Readonly<Record<string, ReceiptState>> = {
  DELIV: 'delivered',
  UNDEL: 'undeliverable',
  EXPIR: 'expired',
  DELET: 'deleted',
  REJEC: 'rejected',
  ACCEP: 'accepted',
  ENROU: 'enroute',
  SCHED: 'enroute',
  UNKNO: 'unknown',
}

/** The state a `stat:` value names, or undefined for one we do not know. */
export function stateOfStat(stat: string): ReceiptState | undefined {
  return STATES_BY_STAT[stat.slice(0, 5).toUpperCase()]
}

// SMPP 3.4 §5.2.28 message_state values (0 SCHEDULED and 9 SKIPPED are SMPP 5.0's).
const STATES_BY_MESSAGE_STATE: readonly ReceiptState[] = ['enroute', 'enroute', 'delivered', 'expired', 'deleted', 'undeliverable', 'accepted', 'unknown', 'rejected', 'undeliverable']

/** The state a message_state TLV names, or undefined for a value outside the spec. */
export function stateOfMessageState(value: number): ReceiptState | undefined {
  return STATES_BY_MESSAGE_STATE[value]
}

/** Accepted and en route are steps on the way; every other state ends the part's story. */
export function isFinalState(state: ReceiptState): boolean {
  return state !== 'accepted' && state !== 'enroute'
}

/** What a deliver_sm (or data_sm) carries that makes it a receipt. */
export interface ReceiptFields {
  /** short_message or message_payload as text. */
  text?: string
  receiptedMessageId?: string
  messageState?: number
  /** network_error_code TLV: network type octet, then the error code (2 octets). */
  networkErrorCode?: Buffer
}

/** The receipt these fields make, or undefined when they name no message id or no state we know. */
export function receiptOf(fields: ReceiptFields, at: number): DeliveryReceipt | undefined {
  const parsed = fields.text === undefined ? undefined : parseReceiptText(fields.text)
  const providerId = fields.receiptedMessageId?.trim() || parsed?.id
  const state = (fields.messageState === undefined ? undefined : stateOfMessageState(fields.messageState)) ?? (parsed && stateOfStat(parsed.stat))
  if (!providerId || !state) return undefined
  const error = errorOf(parsed?.err, fields.networkErrorCode)
  return { providerId, state, final: isFinalState(state), ...(error === undefined ? {} : { error }), at }
}

/** `err:000` means none; otherwise the code as sent, or the network error of the TLV. */
function errorOf(err: string | undefined, networkErrorCode: Buffer | undefined): string | undefined {
  if (err !== undefined && !/^0+$/.test(err)) return err
  if (networkErrorCode && networkErrorCode.length >= 3) {
    const code = networkErrorCode.readUInt16BE(1)
    if (code !== 0) return `network error ${networkErrorCode[0]}/${code}`
  }
  return undefined
}
