// How deeply JSON text nests, found without parsing it: a 1 MB body of `[[[[…` costs JSON.parse ~250 ms and
// builds a million arrays before anything can refuse it; this scan stops at the first level too many, and
// skips strings (a campaign's Base64 body) with indexOf. It costs ~5 ns a character of structure.

const BACKSLASH = 0x5c
const QUOTE = 0x22
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

/** Whether `text` opens more than `max` arrays or objects inside each other; brackets in strings do not count. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      i = closingQuote(text, i)
      // An unterminated string: not JSON, which the parser reports.
      if (i === -1) return false
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--
    }
  }
  return false
}

/** The quote that ends the string opened at `open`: the next one not escaped by an odd run of backslashes. */
function closingQuote(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote
  }
  return -1
}
