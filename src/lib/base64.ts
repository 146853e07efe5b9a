// Strict Base64 text decoding for request fields that carry Base64 (blacklist `emails`, COMPAT.md 7/17).
// Node's Buffer.from(…, 'base64') silently skips characters outside the alphabet, so a plain address or
// a truncated value would decode to garbage instead of being refused.

const ALPHABET = /^[A-Za-z0-9+/\-_]*$/
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** The UTF-8 text a Base64 (or Base64url) string encodes; undefined when it is not Base64 of UTF-8 text. */
export function decodeBase64Text(encoded: string): string | undefined {
  // Line breaks come from MIME-style encoders (76 characters a line). A space can only be a '+' that a
  // form body did not percent-encode (form decoding turns '+' into ' '): Base64 has no spaces.
  const compact = encoded.replace(/[\r\n]/g, '').replaceAll(' ', '+')
  const body = compact.replace(/={1,2}$/, '')
  if (!ALPHABET.test(body) || body.length % 4 === 1) return undefined
  if (body.length !== compact.length && compact.length % 4 !== 0) return undefined
  try {
    // Node's 'base64' decoding accepts the URL-safe alphabet as well.
    return utf8.decode(Buffer.from(body, 'base64'))
  } catch {
    return undefined
  }
}
