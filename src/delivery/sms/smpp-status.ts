// SMPP command_status values (SMPP 3.4 §5.1.3 table 5-2, and the package's names for them): what a refusal
// means in one line, and which ones say "later" rather than "never".
import { smppPackage } from './smpp-loader.js'

export const STATUS = {
  OK: 0x00,
  /** The SMSC does not consider the connection bound (it restarted behind a connection that still looks open). */
  INVALID_BIND_STATUS: 0x04,
  /** Bind refused (wrong system_id or password among others). */
  BIND_FAILED: 0x0d,
  /** The SMSC's queue is full: later. */
  MESSAGE_QUEUE_FULL: 0x14,
  /** Too many submits for the SMSC's agreed rate: slow down, then later. */
  THROTTLED: 0x58,
  /** What an ESME answers a deliver_sm it could not handle now: the SMSC sends it again. */
  TEMPORARY_APP_ERROR: 0x64,
  INVALID_COMMAND_ID: 0x03,
} as const

// Table 5-2's descriptions, lower case.
const DESCRIPTIONS: Readonly<Record<number, string>> = {
  0x01: 'message length is invalid',
  0x02: 'command length is invalid',
  0x03: 'invalid command ID',
  0x04: 'incorrect BIND status for given command',
  0x05: 'ESME already in bound state',
  0x06: 'invalid priority flag',
  0x07: 'invalid registered delivery flag',
  0x08: 'system error',
  0x0a: 'invalid source address',
  0x0b: 'invalid destination address',
  0x0c: 'message ID is invalid',
  0x0d: 'bind failed',
  0x0e: 'invalid password',
  0x0f: 'invalid system ID',
  0x11: 'cancel SM failed',
  0x13: 'replace SM failed',
  0x14: 'message queue full',
  0x15: 'invalid service type',
  0x33: 'invalid number of destinations',
  0x34: 'invalid distribution list name',
  0x40: 'destination flag is invalid',
  0x42: 'invalid submit with replace request',
  0x43: 'invalid esm_class field data',
  0x44: 'cannot submit to distribution list',
  0x45: 'submit_sm or submit_multi failed',
  0x48: 'invalid source address TON',
  0x49: 'invalid source address NPI',
  0x50: 'invalid destination address TON',
  0x51: 'invalid destination address NPI',
  0x53: 'invalid system_type field',
  0x54: 'invalid replace_if_present flag',
  0x55: 'invalid number of messages',
  0x58: 'throttling error (ESME has exceeded allowed message limits)',
  0x61: 'invalid scheduled delivery time',
  0x62: 'invalid message validity period (expiry time)',
  0x63: 'predefined message invalid or not found',
  0x64: 'ESME receiver temporary app error code',
  0x65: 'ESME receiver permanent app error code',
  0x66: 'ESME receiver reject message error code',
  0x67: 'query_sm request failed',
  0xc0: 'error in the optional part of the PDU body',
  0xc1: 'optional parameter not allowed',
  0xc2: 'invalid parameter length',
  0xc3: 'expected optional parameter missing',
  0xc4: 'invalid optional parameter value',
  0xfe: 'delivery failure (used for data_sm_resp)',
  0xff: 'unknown error',
}

let names: Map<number, string> | undefined

/** `ESME_RINVDSTADR (0x0b) invalid destination address`; codes the spec reserves for SMSC vendors are named by number. */
export function describeStatus(code: number): string {
  const hex = `0x${code.toString(16).padStart(2, '0')}`
  const name = (names ??= new Map(Object.entries(smppPackage().errors).map(([name, code]) => [code, name]))).get(code)
  if (!name) return `SMPP status ${hex}${code >= 0x400 && code <= 0x4ff ? ' (SMSC vendor specific)' : ''}`
  const description = DESCRIPTIONS[code]
  return description ? `${name} (${hex}) ${description}` : `${name} (${hex})`
}

/** Statuses that say nothing against the message: the SMSC is busy or does not consider us bound. Every other refusal is final. */
export function isTemporaryStatus(code: number): boolean {
  return code === STATUS.THROTTLED || code === STATUS.MESSAGE_QUEUE_FULL || code === STATUS.INVALID_BIND_STATUS
}

/** Throttled and queue full ask for fewer submits for a while. */
export function asksToSlowDown(code: number): boolean {
  return code === STATUS.THROTTLED || code === STATUS.MESSAGE_QUEUE_FULL
}
