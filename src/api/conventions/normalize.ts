// Brings request input into the shape a route's JSON schema describes, the way SendPulse's PHP backend
// reads it, before validation (COMPAT.md "Requests the server must accept"):
// - form and query values are strings: "10" becomes 10 and "1"/"true" becomes true where the schema says
//   integer/number/boolean (a number is never turned into a string: `bookName: 5` stays a type error);
// - list fields arrive as arrays, JSON strings, PHP serialize() strings or index-keyed objects;
// - strings are trimmed (as Laravel's TrimStrings middleware does), and empty, blank or null fields and the
//   Go SDK's zero date mean "not given" — so a required one is reported missing.
import { GO_ZERO_DATE } from '../../lib/wire-date.js'
import { readPhpSerialized } from '../../lib/php-unserialize.js'
import { parseJsonText } from './parse.js'
import { isIndexKeyed } from '../../lib/index-keyed.js'

export interface JsonSchema {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  additionalProperties?: boolean | JsonSchema
}

const NUMERIC = /^-?\d+(\.\d+)?$/
const TRUE_WORDS = new Set(['1', 'true', 'on', 'yes'])
const FALSE_WORDS = new Set(['0', 'false', 'off', 'no'])

/** Normalises one value against its schema; undefined means "not given". */
export function normalize(routeSchema: object | undefined, value: unknown): unknown {
  const schema = routeSchema as JsonSchema | undefined
  if (!schema || value === undefined) return value
  if (value === null || value === '' || value === GO_ZERO_DATE) return undefined
  const variants = schema.anyOf ?? schema.oneOf
  if (variants) return normalizeUnion(variants, value)
  switch (primaryType(schema)) {
    case 'integer':
    case 'number':
      return typeof value === 'string' && NUMERIC.test(value.trim()) ? Number(value) : value
    case 'boolean':
      return toBoolean(value)
    case 'string':
      return typeof value === 'string' ? value.trim() || undefined : value
    case 'array':
      return normalizeArray(schema, value)
    case 'object':
      return normalizeObject(schema, value)
    default:
      return value
  }
}

function primaryType(schema: JsonSchema): string | undefined {
  return Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
}

/**
 * A union keeps a value that already fits one of its types (e.g. a phone as string or number). An index-keyed
 * object is the list a PHP form sends (`variables[0][0][name]=…`): it is read as the union's list type.
 */
function normalizeUnion(variants: JsonSchema[], value: unknown): unknown {
  const listVariant = isIndexKeyed(value) ? variants.find((v) => primaryType(v) === 'array') : undefined
  if (listVariant) return normalize(listVariant, value)
  const fitting = variants.find((v) => fitsType(primaryType(v), value))
  if (fitting) return normalize(fitting, value)
  for (const variant of variants) {
    const converted = normalize(variant, value)
    if (fitsType(primaryType(variant), converted)) return converted
  }
  return value
}

function fitsType(type: string | undefined, value: unknown): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value)
    case 'number':
      return typeof value === 'number'
    case 'array':
      return Array.isArray(value)
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    case undefined:
      return true
    default:
      return typeof value === type
  }
}

function toBoolean(value: unknown): unknown {
  if (typeof value === 'number' && (value === 0 || value === 1)) return value === 1
  if (typeof value !== 'string') return value
  const word = value.trim().toLowerCase()
  if (TRUE_WORDS.has(word)) return true
  if (FALSE_WORDS.has(word)) return false
  return value
}

function normalizeArray(schema: JsonSchema, value: unknown): unknown {
  let list = typeof value === 'string' ? decodeStructured(value) : value
  if (typeof list === 'string') list = unquotedList(list) ?? list
  if (isIndexKeyed(list)) list = Object.values(list)
  if (!Array.isArray(list)) return value
  return schema.items ? list.map((item) => normalize(schema.items, item) ?? item) : list
}

function normalizeObject(schema: JsonSchema, value: unknown): unknown {
  const object = typeof value === 'string' ? decodeStructured(value) : value
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return value
  const out: Record<string, unknown> = {}
  const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined
  for (const [key, raw] of Object.entries(object)) {
    // Assigned, `__proto__` would set out's prototype: inherited fields would pass validation unseen.
    if (key === '__proto__') continue
    const normalized = normalize(schema.properties?.[key] ?? extra, raw)
    if (normalized !== undefined) out[key] = normalized
  }
  return out
}

/**
 * The Go SDK's list in a query, `[+79210000000,380631234567]`: brackets around items without quotes, which is
 * not JSON (COMPAT.md, SMS and Viber 6). Split on commas and trimmed; undefined when the text is not bracketed,
 * or holds brackets, braces or quotes inside (JSON that could not be read, e.g. too deep: left for validation).
 */
function unquotedList(text: string): string[] | undefined {
  const match = /^\s*\[(.*)\]\s*$/s.exec(text)
  if (!match || /[[\]{}"]/.test(match[1]!)) return undefined
  const inner = match[1]!.trim()
  return inner === '' ? [] : inner.split(',').map((item) => item.trim())
}

/** A string holding JSON or PHP serialize() data, decoded; anything else is returned unchanged. */
export function decodeStructured(text: string): unknown {
  const trimmed = text.trim()
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    try {
      return parseJsonText(trimmed)
    } catch {
      return text
    }
  }
  if (/^a:\d+:\{/.test(trimmed)) {
    try {
      return readPhpSerialized(trimmed)
    } catch {
      return text
    }
  }
  return text
}
