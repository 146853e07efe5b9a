// short_message and message_payload as the text they carry. The package decodes them by data_coding before we
// see them, and reads 0 (SMSC default) and 1 (IA5) as GSM 03.38, where `_` is 0x11 and 0x5F is `§`; receipts
// are ASCII in practice, so those octets are put back and read as ASCII.
import smpp from 'smpp'

/** The text of a decoded message field (`{ message }`, a string or a Buffer), or undefined when there is none. */
export function textOfMessageField(field: unknown, dataCoding: unknown): string | undefined {
  if (field === undefined || field === null) return undefined
  const message = typeof field === 'object' && !Buffer.isBuffer(field) ? (field as { message?: unknown }).message : field
  if (Buffer.isBuffer(message)) return message.toString('latin1')
  if (typeof message !== 'string') return undefined
  const coding = typeof dataCoding === 'number' ? dataCoding & 0x0f : 0
  // The package's GSM decoding maps each octet below 0x80 to one character, so encoding gives the octets back.
  return coding <= 1 ? smpp.gsmCoder.encode(message, 0).toString('latin1') : message
}
