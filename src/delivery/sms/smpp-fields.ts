// short_message and message_payload as the text they carry. The package decodes them by data_coding before we
// see them, and reads 0 (SMSC default) and 1 (IA5) as GSM 03.38, where `_` is 0x11 and 0x5F is `§`; receipts
// are ASCII in practice, so those octets are put back and read as ASCII.
import { smppPackage } from './smpp-loader.js'

// Octets that GSM 03.38 and ASCII read alike: space to #, % to ?, A to Z, a to z (most receipts hold nothing else).
const SAME_IN_GSM_AND_ASCII = /^[\x20-\x23\x25-\x3f\x41-\x5a\x61-\x7a]*$/

/** The text of a decoded message field (`{ message }`, a string or a Buffer), or undefined when there is none. */
export function textOfMessageField(field: unknown, dataCoding: unknown): string | undefined {
  if (field === undefined || field === null) return undefined
  const message = typeof field === 'object' && !Buffer.isBuffer(field) ? (field as { message?: unknown }).message : field
  if (Buffer.isBuffer(message)) return message.toString('latin1')
  if (typeof message !== 'string') return undefined
  const coding = typeof dataCoding === 'number' ? dataCoding & 0x0f : 0
  if (coding > 1 || SAME_IN_GSM_AND_ASCII.test(message)) return message
  // The package's GSM decoding maps each octet below 0x80 to one character, so encoding gives the octets back.
  return smppPackage().gsmCoder.encode(message, 0).toString('latin1')
}
