// Quoted-printable (RFC 2045 6.7) written as SMTP data while it is encoded: every line break of the text
// becomes CRLF, lines are at most 76 characters, and a line never starts with '.' (it is written =2E), so the
// message needs no dot-stuffing on the way out (RFC 5321 4.5.2) and DKIM signs the very bytes that are sent.
// One pass over the UTF-16 text into bytes: nodemailer's qp.encode + qp.wrap (a UTF-8 copy, an encoding
// pass, then a wrapping pass with regexes on every line) took 8.6 % of a campaign's CPU.

const CR = 0x0d
const LF = 0x0a
const SPACE = 0x20
const TAB = 0x09
const DOT = 0x2e
const EQUALS = 0x3d
const HEX = Buffer.from('0123456789ABCDEF', 'latin1')
/** Characters on a line before a soft break: 75, and the '=' of the break makes the 76 RFC 2045 allows. */
const MAX_CHARS = 75

/** 1 for the bytes written as they are: printable ASCII but '=', space and tab (RFC 2045 6.7 rules 2 and 3). */
const LITERAL = new Uint8Array(128)
for (let c = 0x21; c <= 0x7e; c++) LITERAL[c] = c === EQUALS ? 0 : 1
LITERAL[SPACE] = 1
LITERAL[TAB] = 1

/** Reused between calls (the encoder is synchronous): grown to the largest text seen, never shrunk. */
let scratch = Buffer.allocUnsafe(64 * 1024)

export function quotedPrintable(text: string): Buffer {
  // A UTF-16 unit gives at most 3 UTF-8 bytes, 9 characters encoded; soft breaks add 3 per 75.
  const worst = text.length * 10 + 16
  if (scratch.length < worst) scratch = Buffer.allocUnsafe(worst)
  const out = scratch
  let pos = 0
  /** Characters on the line being written. */
  let line = 0
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i)
    if (c < 0x80 && LITERAL[c] === 1) {
      if (line === MAX_CHARS) {
        pos = softBreak(out, pos)
        line = 0
      }
      if (line === 0 && c === DOT) {
        pos = putEncoded(out, pos, DOT)
        line = 3
      } else {
        out[pos++] = c
        line++
      }
      continue
    }
    if (c === CR || c === LF) {
      if (c === CR && text.charCodeAt(i + 1) === LF) i++
      pos = encodeTrailingWhitespace(out, pos, line)
      out[pos++] = CR
      out[pos++] = LF
      line = 0
      continue
    }
    // Encoded: '=', control characters, and each UTF-8 byte of anything else, never split over two lines.
    const bytes = c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 4 : 3
    if (line + 3 * bytes > MAX_CHARS) {
      pos = softBreak(out, pos)
      line = 0
    }
    line += 3 * bytes
    if (bytes === 1) pos = putEncoded(out, pos, c)
    else if (bytes === 2) {
      pos = putEncoded(out, pos, 0xc0 | (c >> 6))
      pos = putEncoded(out, pos, 0x80 | (c & 63))
    } else if (bytes === 3) {
      // A lone surrogate is not text: U+FFFD, as Buffer.from(text) writes it.
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd
      pos = putEncoded(out, pos, 0xe0 | (c >> 12))
      pos = putEncoded(out, pos, 0x80 | ((c >> 6) & 63))
      pos = putEncoded(out, pos, 0x80 | (c & 63))
    } else {
      const point = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00)
      pos = putEncoded(out, pos, 0xf0 | (point >> 18))
      pos = putEncoded(out, pos, 0x80 | ((point >> 12) & 63))
      pos = putEncoded(out, pos, 0x80 | ((point >> 6) & 63))
      pos = putEncoded(out, pos, 0x80 | (point & 63))
    }
  }
  pos = encodeTrailingWhitespace(out, pos, line)
  return Buffer.from(out.subarray(0, pos))
}

function putEncoded(out: Buffer, pos: number, byte: number): number {
  out[pos] = EQUALS
  out[pos + 1] = HEX[byte >> 4]!
  out[pos + 2] = HEX[byte & 15]!
  return pos + 3
}

function softBreak(out: Buffer, pos: number): number {
  out[pos] = EQUALS
  out[pos + 1] = CR
  out[pos + 2] = LF
  return pos + 3
}

/** Whitespace that ends a line must be encoded, or a relay may strip it (RFC 2045 6.7 rule 3). */
function encodeTrailingWhitespace(out: Buffer, pos: number, line: number): number {
  const last = out[pos - 1]!
  if (line === 0 || (last !== SPACE && last !== TAB)) return pos
  // The encoded form takes 2 more characters than the literal one: the line may have to break before it.
  if (line + 2 > MAX_CHARS) {
    out[pos - 1] = EQUALS
    out[pos] = CR
    out[pos + 1] = LF
    return putEncoded(out, pos + 2, last)
  }
  return putEncoded(out, pos - 1, last)
}
