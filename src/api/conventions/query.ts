// Query strings as SendPulse clients send them: PHP-style forms (`a[0]=x`, `route[UA]=national`, `+` as
// space) and, from the Python SDK, a raw URL-encoded JSON object (`?{"limit": 10}`, `?{}`), which is only
// percent-decoded so `+`, `&` and `=` inside its values stay as they are (COMPAT.md 3, 14).
import { parseForm, parseJsonText } from './parse.js'

/** Marks a query string that looked like JSON but did not parse; the input hook answers it with a 400. */
export const UNPARSABLE_QUERY = Symbol('unparsable query')

export function parseQueryString(raw: string): Record<string | symbol, unknown> {
  if (raw === '') return {}
  const decoded = safeDecode(raw)
  const first = (decoded ?? raw).trimStart()[0]
  if (first === '{' || first === '[' || /^(%7B|%5B)/i.test(raw)) {
    try {
      const parsed = parseJsonText(decoded ?? '')
      if (Array.isArray(parsed) && parsed.length === 0) return {}
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>
    } catch {
      // fall through: reported below
    }
    return { [UNPARSABLE_QUERY]: true }
  }
  return parseForm(raw)
}

function safeDecode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw)
  } catch {
    return undefined
  }
}
