// SMS text as handsets count it: the encoding a text needs, its parts, and the bytes of each part.
// 3GPP TS 23.038 §6.2.1: the GSM 7-bit default alphabet (one septet a character) and its extension table (an
// escape septet, 0x1B, then the character: two septets). Anything else needs UCS-2 (two octets a UTF-16 unit).
// TS 23.040 §9.2.3.24.1: a concatenated message's parts carry a 6-octet UDH, which leaves 134 of the 140 octets.

export type SmsEncoding = 'gsm7' | 'ucs2'
/** How GSM-7 goes into short_message with data_coding 0: one septet per octet (what most SMSCs expect) or packed. */
export type Gsm7Packing = 'unpacked' | 'packed'

export interface SegmentCount {
  encoding: SmsEncoding
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  units: number
  segments: number
}

/** The data_coding of each encoding (SMPP 3.4 §5.2.19): SMSC default alphabet, UCS-2. */
export const DATA_CODING: Readonly<Record<SmsEncoding, number>> = { gsm7: 0x00, ucs2: 0x08 }

// 140 octets: 160 septets, 70 UCS-2 units alone; 134 octets after the UDH: 153 septets (the UDH and one fill bit
// take 7 septets), 67 units.
const LIMITS: Readonly<Record<SmsEncoding, { single: number; part: number }>> = {
  gsm7: { single: 160, part: 153 },
  ucs2: { single: 70, part: 67 },
}

// The default alphabet in code order; 0x1B (the escape to the extension table) is not a character of its own.
const BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà'
const ESCAPE = 0x1b
const BASIC_CODES = new Map([...BASIC].map((char, code) => [char, code] as const).filter(([, code]) => code !== ESCAPE))
const EXTENSION_CODES = new Map<string, number>([
  ['\f', 0x0a], ['^', 0x14], ['{', 0x28], ['}', 0x29], ['\\', 0x2f], ['[', 0x3c], ['~', 0x3d], [']', 0x3e], ['|', 0x40], ['€', 0x65],
])
const CARRIAGE_RETURN = 0x0d

/** Septets a character takes in GSM-7: 1, 2 (extension table) or 0 when it has none. */
function septetsOf(char: string): 0 | 1 | 2 {
  if (BASIC_CODES.has(char)) return 1
  return EXTENSION_CODES.has(char) ? 2 : 0
}

/** Whether a character has a code in GSM-7 (the default alphabet or its extension table). */
export function isGsm7Character(char: string): boolean {
  return septetsOf(char) !== 0
}

/** GSM-7 when every character is in the default alphabet or its extension table, otherwise UCS-2. */
export function smsEncodingOf(text: string): SmsEncoding {
  for (const char of text) if (septetsOf(char) === 0) return 'ucs2'
  return 'gsm7'
}

/**
 * Where each part ends (UTF-16 indexes), filled greedily: an extension character's two septets, or a surrogate
 * pair's two units, never straddle two parts, so a part may hold one unit less than the limit.
 */
function partsOf(text: string, encoding: SmsEncoding): { units: number; ends: number[] } {
  const width = (char: string) => (encoding === 'gsm7' ? septetsOf(char) : char.length)
  let units = 0
  for (const char of text) units += width(char)
  if (units <= LIMITS[encoding].single) return { units, ends: [text.length] }
  const ends: number[] = []
  let index = 0
  let filled = 0
  for (const char of text) {
    if (filled + width(char) > LIMITS[encoding].part) {
      ends.push(index)
      filled = 0
    }
    filled += width(char)
    index += char.length
  }
  ends.push(text.length)
  return { units, ends }
}

/** Encoding, units and parts of a text; an empty text counts as one part (empty bodies are refused upstream). */
export function segmentsOf(text: string): SegmentCount {
  const encoding = smsEncodingOf(text)
  const { units, ends } = partsOf(text, encoding)
  return { encoding, units, segments: ends.length }
}

/** The text of each part, as segmentsOf counts them. */
export function splitParts(text: string): string[] {
  const { ends } = partsOf(text, smsEncodingOf(text))
  return ends.map((end, i) => text.slice(i === 0 ? 0 : ends[i - 1], end))
}

/** GSM-7 septets, one per octet, extension characters as 0x1B and their code; throws on a character without one. */
export function gsm7Septets(text: string): Buffer {
  const septets: number[] = []
  for (const char of text) {
    const basic = BASIC_CODES.get(char)
    if (basic !== undefined) {
      septets.push(basic)
      continue
    }
    const extension = EXTENSION_CODES.get(char)
    if (extension === undefined) throw new Error(`${JSON.stringify(char)} is not in the GSM 7-bit alphabet`)
    septets.push(ESCAPE, extension)
  }
  return Buffer.from(septets)
}

/**
 * Septets packed 8 into 7 octets, least significant bits first (TS 23.038 §6.1.2.1.1), after `fillBits` zero bits
 * that align the first septet after a UDH. When 7 bits would be left over in the last octet, a CR fills them
 * (§6.1.2.3.1), so a handset does not read the zero bits as a trailing `@`.
 */
export function packSeptets(septets: Uint8Array, fillBits = 0): Buffer {
  let bits = fillBits + septets.length * 7
  const padded = bits % 8 === 1 ? [...septets, CARRIAGE_RETURN] : [...septets]
  if (padded.length > septets.length) bits += 7
  const out = Buffer.alloc(Math.ceil(bits / 8))
  let position = fillBits
  for (const septet of padded) {
    const octet = position >> 3
    const shift = position & 7
    out[octet] = (out[octet] ?? 0) | ((septet << shift) & 0xff)
    if (shift > 1) out[octet + 1] = (out[octet + 1] ?? 0) | (septet >> (8 - shift))
    position += 7
  }
  return out
}

/** UTF-16 big endian, as data_coding 8 carries it (a surrogate pair passes as two units, as handsets expect). */
export function ucs2Bytes(text: string): Buffer {
  return Buffer.from(text, 'utf16le').swap16()
}

/** Fill bits that put the first septet after a UDH of `udhOctets` octets (its length octet included) on a septet boundary. */
export function fillBitsAfter(udhOctets: number): number {
  return (7 - ((udhOctets * 8) % 7)) % 7
}

/** The user data of one part for its data_coding, after a UDH of `udhOctets` octets (0: none). */
export function encodeSmsText(text: string, encoding: SmsEncoding, options: { gsm7Packing?: Gsm7Packing; udhOctets?: number } = {}): Buffer {
  if (encoding === 'ucs2') return ucs2Bytes(text)
  const septets = gsm7Septets(text)
  return options.gsm7Packing === 'packed' ? packSeptets(septets, fillBitsAfter(options.udhOctets ?? 0)) : septets
}
