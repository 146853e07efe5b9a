// Query strings as SendPulse clients send them: PHP-style forms (`a[0]=x`, `route[UA]=national`, `+` as
// space) and, from the Python SDK, a raw URL-encoded JSON object (`?{"limit": 10}`, `?{}`), which is only
// percent-decoded so `+`, `&` and `=` inside its values stay as they are (COMPAT.md 3, 14).
import { AppError } from '../../services/errors.js'
import { parseForm, parseJsonText } from './parse.js'

/**
 * Holds why a query string could not be read. The router parses it before any hook runs, where a throw
 * would not become an answer, so the input hook answers it instead.
 */
export const QUERY_ERROR = Symbol('query error')

export function parseQueryString(raw: string): Record<string | symbol, unknown> {
  try {
    return readQuery(raw)
  } catch (err) {
    if (err instanceof AppError) return { [QUERY_ERROR]: err }
    throw err
  }
}

function readQuery(raw: string): Record<string, unknown> {
  if (raw === '') return {}
  const decoded = safeDecode(raw)
  const first = (decoded ?? raw).trimStart()[0]
  if (first === '{' || first === '[' || /^(%7B|%5B)/i.test(raw)) {
    const parsed = readJson(decoded)
    if (Array.isArray(parsed) && parsed.length === 0) return {}
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>
    throw new AppError('bad_request', 'Query string is not valid JSON')
  }
  return parseForm(raw, 'uri_too_long')
}

function readJson(decoded: string | undefined): unknown {
  try {
    return parseJsonText(decoded ?? '')
  } catch (cause) {
    throw new AppError('bad_request', 'Query string is not valid JSON', { cause })
  }
}

function safeDecode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw)
  } catch {
    return undefined
  }
}
