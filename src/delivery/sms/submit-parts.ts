// The submit_sm fields that carry a text: its encoding, and for a long text one short_message per part, each
// after a concatenation UDH (TS 23.040 §9.2.3.24.1: IEI 0x00, 8-bit reference, total, sequence from 1).
import { DATA_CODING, encodeSmsText, smsEncodingOf, splitParts, type Gsm7Packing } from './text.js'

/** SMPP 3.4 §5.2.12: the UDH indicator of esm_class. */
export const ESM_CLASS_UDHI = 0x40
/** The concatenation header counts parts in one octet. */
export const MAX_PARTS = 255
const UDH_OCTETS = 6

export interface SubmitPart {
  shortMessage: Buffer
  esmClass: number
  dataCoding: number
}

/** The parts of a text; `reference` (0–255) ties a long text's parts together on the handset. */
export function submitPartsOf(text: string, options: { reference: number; gsm7Packing: Gsm7Packing }): SubmitPart[] {
  const encoding = smsEncodingOf(text)
  const dataCoding = DATA_CODING[encoding]
  const parts = splitParts(text)
  if (parts.length === 1) return [{ shortMessage: encodeSmsText(text, encoding, { gsm7Packing: options.gsm7Packing }), esmClass: 0, dataCoding }]
  if (parts.length > MAX_PARTS) throw new RangeError(`a text of ${parts.length} parts is longer than the ${MAX_PARTS} a concatenated SMS can have`)
  return parts.map((part, i) => {
    const udh = Buffer.from([UDH_OCTETS - 1, 0x00, 0x03, options.reference & 0xff, parts.length, i + 1])
    const body = encodeSmsText(part, encoding, { gsm7Packing: options.gsm7Packing, udhOctets: UDH_OCTETS })
    return { shortMessage: Buffer.concat([udh, body]), esmClass: ESM_CLASS_UDHI, dataCoding }
  })
}
