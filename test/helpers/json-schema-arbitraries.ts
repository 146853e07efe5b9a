// fast-check arbitraries from the JSON Schema subset our OpenAPI document uses (type, enum, anyOf, properties,
// required, additionalProperties, items, min/maxItems, minimum/maximum, min/maxLength, pattern): values a schema
// accepts, and values it must turn away. Hand-written: no well-kept npm package maps JSON Schema to fast-check.
import fc from 'fast-check'

export interface JsonSchema {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'null'
  enum?: unknown[]
  anyOf?: JsonSchema[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  items?: JsonSchema
  minItems?: number
  maxItems?: number
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  pattern?: string
  format?: string
}

/** Real values of both accounts (ids, addresses, phones): random ids rarely hit an object, these always do. */
export interface KnownValues {
  integers: number[]
  strings: string[]
}

/** Lists in valid values stay short: the point is their shape, and a request stays a few milliseconds. */
const MAX_VALID_ITEMS = 4
/** Strings in valid values stay short unless the schema asks for more (a 20,000-byte string is an invalid case). */
const MAX_VALID_LENGTH = 40

/** Strings that broke parsers, templates, SQL, paths and logs elsewhere. */
const HOSTILE_STRINGS = [
  '', ' ', '\u0000', '\u0000\u0007\b\u001b[31m', '\r\n\r\nX-Injected: 1', '\uD800', '\uFEFF', '💥'.repeat(50), 'ﬀ'.repeat(100),
  "'; DROP TABLE contacts; --", '" OR 1=1 --', '%', '%00', '%ZZ', '../../etc/passwd', '..%2F..%2F', '{{#each this}}{{/each}}', '{{constructor.constructor}}',
  '<script>alert(1)</script>', '__proto__', 'constructor', 'NaN', 'Infinity', '-0', '1e999', '0x10', '9'.repeat(40), 'a:1:{i:0;s:7:"a@b.com";}',
  'x'.repeat(20_000), 'a@b.com', 'a@', '@b.com', 'a@b.com\n', 'A@B.COM', '+380631234567', 'true', 'null', '[]', '{}', '{"a":',
]

/** Lists and objects nested far deeper than any field allows (parsers and validators recurse). */
function deeplyNested(depth: number): unknown {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value }
  return value
}

/** A value of any JSON type, strings and numbers biased to the hostile. */
export function anyJson(maxDepth = 2): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...HOSTILE_STRINGS), weight: 3 },
    { arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, -(2 ** 63)), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 1 },
    { arbitrary: fc.constantFrom(deeplyNested(64), deeplyNested(2_000)), weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth }), weight: 2 },
  )
}

function typeOf(schema: JsonSchema): JsonSchema['type'] | undefined {
  return schema.type ?? (schema.enum ? (typeof schema.enum[0] as JsonSchema['type']) : undefined)
}

/** A value the schema accepts; `hint` (the field's name) picks e-mail addresses and phones for plain strings. */
export function validValue(schema: JsonSchema, known: KnownValues, hint = ''): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum)
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => validValue(s, known, hint)))
  switch (schema.type) {
    case 'integer': {
      const min = schema.minimum ?? -(2 ** 31)
      const max = schema.maximum ?? 2 ** 31
      const fitting = known.integers.filter((n) => n >= min && n <= max)
      // Ids are small: most draws land on existing objects of either account, or just past them.
      const small = fc.integer({ min, max: Math.max(min, Math.min(max, 60)) })
      return fitting.length > 0 ? fc.oneof(fc.constantFrom(...fitting), small, fc.integer({ min, max })) : fc.oneof(small, fc.integer({ min, max }))
    }
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'string':
      return validString(schema, known, hint)
    case 'array':
      return fc.array(validValue(schema.items ?? {}, known, hint), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? MAX_VALID_ITEMS, MAX_VALID_ITEMS)),
      })
    case 'object':
      return validObject(schema, known)
    default:
      // No type (a field that takes several shapes, e.g. `emails`): addresses, objects with them, or anything.
      return fc.oneof(validString({}, known, hint || 'email'), fc.record({ email: validString({}, known, 'email'), variables: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }) }), fc.jsonValue({ maxDepth: 2 }))
  }
}

function validString(schema: JsonSchema, known: KnownValues, hint: string): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? MAX_VALID_LENGTH, MAX_VALID_LENGTH))
  const fits = (s: string) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity) && (!schema.pattern || new RegExp(schema.pattern, 'u').test(s))
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern, 'u')).filter(fits)
  const fitting = known.strings.filter(fits)
  const shaped = /mail/i.test(hint) || schema.format === 'email' ? fc.emailAddress() : /phone/i.test(hint) ? fc.stringMatching(/^\+?[1-9]\d{9,13}$/) : fc.string({ minLength, maxLength })
  const options = [shaped.filter(fits), fc.string({ minLength, maxLength })]
  return fitting.length > 0 ? fc.oneof(fc.constantFrom(...fitting), ...options) : fc.oneof(...options)
}

function validObject(schema: JsonSchema, known: KnownValues): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {}
  if (Object.keys(properties).length === 0) return fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 })
  const fields = Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, validValue(s, known, name)]))
  return fc.record(fields, { requiredKeys: (schema.required ?? []).filter((name) => name in fields) })
}

/** A value the schema must turn away: the wrong type, out of range, too long or short, extra fields, hostile bytes. */
export function invalidValue(schema: JsonSchema, known: KnownValues, hint = ''): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [anyJson()]
  const type = typeOf(schema)
  if (type === 'integer' || type === 'number') {
    const edges = [schema.minimum === undefined ? -1 : schema.minimum - 1, schema.maximum === undefined ? 2 ** 53 : schema.maximum + 1, 0.5, -0, 1e308]
    options.push(fc.constantFrom(...edges), fc.constantFrom(...edges).map(String))
  }
  if (type === 'string') {
    const tooLong = 'é'.repeat((schema.maxLength ?? 10_000) + 1)
    options.push(fc.constantFrom(tooLong, 12345, ['a@b.com'], { a: 'b' }), fc.string({ unit: 'binary', minLength: 1, maxLength: 64 }))
  }
  if (type === 'array') {
    const item = validValue(schema.items ?? {}, known, hint)
    // One item past maxItems; without one, a list longer than any valid one drawn here (50 > 4).
    const tooMany = (schema.maxItems ?? 49) + 1
    options.push(fc.array(item, { minLength: tooMany, maxLength: tooMany }), fc.array(anyJson(), { maxLength: 5 }), item)
  }
  if (type === 'object') {
    const base = validObject(schema, known)
    const extra = fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', 'account_id', 'extra', ''), anyJson(), { minKeys: 1, maxKeys: 3 })
    options.push(fc.tuple(base, extra).map(([a, b]) => ({ ...a, ...b })))
    const required = schema.required ?? []
    if (required.length > 0) options.push(fc.tuple(base, fc.constantFrom(...required)).map(([a, drop]) => Object.fromEntries(Object.entries(a).filter(([k]) => k !== drop))))
  }
  return fc.oneof(...options)
}
