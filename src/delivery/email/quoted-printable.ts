// Quoted-printable (RFC 2045 6.7) written as SMTP data while it is encoded: every line break of the text
// becomes CRLF, lines are at most 76 characters, and a line never starts with '.' (it is written =2E), so the
// message needs no dot-stuffing on the way out (RFC 5321 4.5.2) and DKIM signs the very bytes that are sent.
// One pass over the text's UTF-8 bytes: nodemailer's qp.encode + qp.wrap (an encoding pass, then a wrapping
// pass with regexes on every line) took 8.6 % of a campaign's CPU.
//
// The encoded bytes are written once, where they stay until the connection takes them: into a slab shared by
// the parts of many messages (ENCODED_SLAB_BYTES), not one allocation per part. A part of ~10 KB allocated on
// its own is a malloc of its own, freed whenever V8 collects its Buffer; at thousands a second they left the
// process heap fragmented, ~50 MiB over a campaign of 40,000 (docs/benchmarks.md).
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

/** The text's UTF-8 bytes, reused between calls (the encoder is synchronous): grown to the largest text seen. */
let input = Buffer.allocUnsafe(64 * 1024)
/** Parts of ~25 messages of 10 KB: one allocation instead of ~50. */
const ENCODED_SLAB_BYTES = 256 * 1024
let slab = Buffer.allocUnsafe(0)
let slabUsed = 0

/** The text encoded; a view of a slab shared with other parts, never written to again. */
export function quotedPrintable(text: string): Buffer {
  // A UTF-16 unit is at most 3 UTF-8 bytes. Written into the reused buffer rather than Buffer.from(text): a
  // rendered template's rope is flattened natively and no buffer is allocated for it.
  if (input.length < text.length * 3) input = Buffer.allocUnsafe(text.length * 3)
  const bytes = input
  const length = bytes.write(text, 0, 'utf8')
  // Each byte takes at most 3 characters, soft breaks add 3 per 75, a bare CR or LF becomes CRLF.
  const worst = Math.ceil(length * 3.2) + 16
  if (slab.length - slabUsed < worst) {
    slab = Buffer.allocUnsafeSlow(Math.max(ENCODED_SLAB_BYTES, worst))
    slabUsed = 0
  }
  const out = slab
  const start = slabUsed
  let pos = start
  /** Characters on the line being written. */
  let line = 0
  for (let i = 0; i < length; i++) {
    const c = bytes[i]!
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
    } else if (c === CR || c === LF) {
      if (c === CR && i + 1 < length && bytes[i + 1] === LF) i++
      pos = encodeTrailingWhitespace(out, pos, line)
      out[pos++] = CR
      out[pos++] = LF
      line = 0
    } else {
      // '=', a control character or a byte of a UTF-8 sequence: the first byte of a sequence makes room for all
      // of it, so that no character is split over two lines.
      const room = c >= 0xf0 ? 12 : c >= 0xe0 ? 9 : c >= 0xc0 ? 6 : 3
      if (line + room > MAX_CHARS) {
        pos = softBreak(out, pos)
        line = 0
      }
      pos = putEncoded(out, pos, c)
      line += 3
    }
  }
  pos = encodeTrailingWhitespace(out, pos, line)
  // The next part starts on an 8-byte boundary, as the allocator would place it.
  slabUsed = (pos + 7) & ~7
  return out.subarray(start, pos)
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
  if (line === 0) return pos
  const last = out[pos - 1]!
  if (last !== SPACE && last !== TAB) return pos
  // The encoded form takes 2 more characters than the literal one: the line may have to break before it.
  if (line + 2 > MAX_CHARS) {
    out[pos - 1] = EQUALS
    out[pos] = CR
    out[pos + 1] = LF
    return putEncoded(out, pos + 2, last)
  }
  return putEncoded(out, pos - 1, last)
}
