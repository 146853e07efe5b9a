// Reads PHP serialize() text (COMPAT.md 7: the npm SDK's addEmails/removeEmails, PHP 1.x removeEmails and
// campaign attachments) into plain JSON values, with work bounded by the input's size: declared counts and
// lengths are checked against the bytes left before anything is read, nesting stops at MAX_DEPTH levels,
// and `__proto__` keys are dropped. (php-serialize, used before, took 2.6 s for an 11 MB list, made BigInts
// that JSON cannot carry, took `__proto__` keys as the object's prototype, and is a development dependency.)

/** SDKs send lists of contacts with their variables: 3 levels. */
export const MAX_DEPTH = 32

/** The fewest characters one array entry takes: `i:0;N;`. */
const MIN_ENTRY_LENGTH = 6
const MAX_LENGTH_DIGITS = 10

const INTEGER = /^-?\d+$/
const FLOAT = /^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/
/** Property names of non-public members: "\0Class\0name" (private), "\0*\0name" (protected). */
const MEMBER_PREFIX = /^\0[^\0]*\0/

/** The value `text` holds; throws when it is not one whole serialize() value within the limits above. */
export function readPhpSerialized(text: string): unknown {
  const reader = new Reader(text)
  const value = reader.value(0)
  if (reader.pos !== text.length) reader.fail('trailing data')
  return value
}

/** Reads the JavaScript string itself (no Buffer): `s:N` lengths are counted in UTF-8 bytes as it goes. */
class Reader {
  pos = 0

  constructor(readonly text: string) {}

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) this.fail(`nested deeper than ${MAX_DEPTH} levels`)
    const type = this.text[this.pos]
    if (type === 'N') {
      this.take('N;')
      return null
    }
    this.pos++
    this.take(':')
    switch (type) {
      case 'b': {
        const flag = this.until(';')
        if (flag !== '0' && flag !== '1') this.fail('a boolean is 0 or 1')
        return flag === '1'
      }
      case 'i':
        return this.integer(this.until(';'))
      case 'd': {
        const text = this.until(';')
        if (!FLOAT.test(text)) this.fail('not a finite number')
        return Number(text)
      }
      case 's': {
        const text = this.string()
        this.take(';')
        return text
      }
      case 'a':
        return this.entries(depth)
      case 'O': {
        this.string()
        this.take(':')
        return this.entries(depth, MEMBER_PREFIX)
      }
      default:
        return this.fail(`type ${JSON.stringify(type)} is not read`)
    }
  }

  /** `N:{key value …}`: a list when the keys are 0, 1, 2… in order, an object otherwise. */
  private entries(depth: number, strip?: RegExp): unknown {
    const count = this.length()
    if (count * MIN_ENTRY_LENGTH > this.text.length - this.pos) this.fail('more entries declared than the text holds')
    this.take('{')
    const keys: string[] = []
    const values: unknown[] = []
    let isList = true
    for (let i = 0; i < count; i++) {
      const key = this.key()
      const value = this.value(depth + 1)
      // php-serialize accepted a `;` after a nested array; some hand-written serializers put one.
      if (this.text[this.pos] === ';') this.pos++
      if (key !== i) isList = false
      keys.push(strip ? String(key).replace(strip, '') : String(key))
      values.push(value)
    }
    this.take('}')
    if (isList) return values
    const object: Record<string, unknown> = {}
    keys.forEach((key, i) => {
      if (key !== '__proto__') object[key] = values[i]
    })
    return object
  }

  private key(): number | string {
    const type = this.text[this.pos]
    if (type !== 'i' && type !== 's') this.fail('a key is an integer or a string')
    this.pos++
    this.take(':')
    if (type === 'i') return this.integer(this.until(';'))
    const text = this.string()
    this.take(';')
    return text
  }

  /** `N:"…"` where N counts UTF-8 bytes: read by length, so quotes inside need no escaping. */
  private string(): string {
    const bytes = this.length()
    this.take('"')
    const start = this.pos
    let counted = 0
    while (counted < bytes && this.pos < this.text.length) {
      const code = this.text.charCodeAt(this.pos)
      counted += utf8Bytes(code)
      // A surrogate pair is one 4-byte character: its first half counted all 4.
      this.pos += isHighSurrogate(code) ? 2 : 1
    }
    if (counted !== bytes) this.fail('a string of another length than declared')
    const text = this.text.slice(start, this.pos)
    this.take('"')
    return text
  }

  private length(): number {
    const digits = this.until(':')
    if (!/^\d+$/.test(digits) || digits.length > MAX_LENGTH_DIGITS) this.fail('not a length')
    return Number(digits)
  }

  private integer(text: string): number {
    const value = Number(text)
    if (!INTEGER.test(text) || !Number.isSafeInteger(value)) this.fail('not an integer JSON can carry')
    return value
  }

  /** The text up to `stop`, which is skipped. */
  private until(stop: string): string {
    const end = this.text.indexOf(stop, this.pos)
    if (end === -1) this.fail(`no ${JSON.stringify(stop)}`)
    const text = this.text.slice(this.pos, end)
    this.pos = end + 1
    return text
  }

  private take(expected: string): void {
    if (!this.text.startsWith(expected, this.pos)) this.fail(`expected ${JSON.stringify(expected)}`)
    this.pos += expected.length
  }

  fail(reason: string): never {
    throw new Error(`Not PHP serialize() data at character ${this.pos}: ${reason}`)
  }
}

function utf8Bytes(code: number): number {
  if (code < 0x80) return 1
  if (code < 0x800) return 2
  return isHighSurrogate(code) ? 4 : 3
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}
