import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Type } from '@sinclair/typebox'
import { normalize, decodeStructured } from '../../../src/api/conventions/normalize.js'

const Emails = Type.Object({ emails: Type.Array(Type.String()) })
const Phones = Type.Object({ phones: Type.Array(Type.Union([Type.String(), Type.Integer()])) })

describe('normalize', () => {
  it('accepts a list field as an array, a JSON string, a PHP serialize() string or an index-keyed object', () => {
    const want = { emails: ['a@b.com', 'c@d.com'] }
    assert.deepEqual(normalize(Emails, { emails: ['a@b.com', 'c@d.com'] }), want)
    assert.deepEqual(normalize(Emails, { emails: '["a@b.com","c@d.com"]' }), want)
    assert.deepEqual(normalize(Emails, { emails: 'a:2:{i:0;s:7:"a@b.com";i:1;s:7:"c@d.com";}' }), want)
    assert.deepEqual(normalize(Emails, { emails: { 0: 'a@b.com', 1: 'c@d.com' } }), want)
  })

  it('reads serialize() strings by UTF-8 byte length, so quotes and multi-byte characters inside survive', () => {
    assert.deepEqual(decodeStructured('a:2:{i:0;s:4:"a";b";i:1;s:2:"é";}'), ['a";b', 'é'])
  })

  it('keeps numeric phones as numbers and string phones as strings, also unquoted in a query string', () => {
    assert.deepEqual(normalize(Phones, { phones: [380631234567, '380501234567'] }), { phones: [380631234567, '380501234567'] })
    assert.deepEqual(normalize(Phones, { phones: '[380631234567,380501234567]' }), { phones: [380631234567, 380501234567] })
  })

  it('treats the Go zero date, empty strings and nulls as not given', () => {
    const Schema = Type.Object({ send_date: Type.Optional(Type.String()), type: Type.Optional(Type.String()), name: Type.Optional(Type.String()) })
    assert.deepEqual(normalize(Schema, { send_date: '0001-01-01 00:00:00', type: '', name: null }), {})
    assert.deepEqual(normalize(Schema, { type: '   ', name: '  Acme ' }), { name: 'Acme' })
  })

  it('turns form strings into integers and booleans but never numbers into strings', () => {
    const Schema = Type.Object({ limit: Type.Integer(), active: Type.Boolean(), bookName: Type.String() })
    assert.deepEqual(normalize(Schema, { limit: '10', active: '1', bookName: 5 }), { limit: 10, active: true, bookName: 5 })
    assert.deepEqual(normalize(Schema, { limit: '10abc', active: 'maybe' }), { limit: '10abc', active: 'maybe' })
  })
})

describe('normalize with hostile list fields', () => {
  const Variables = Type.Object({ variables: Type.Object({}, { additionalProperties: true }) })

  it('never takes a __proto__ key of a JSON or serialize() string as the prototype of what it returns', () => {
    for (const variables of ['{"__proto__": {"admin": true}, "name": "x"}', 'a:2:{s:9:"__proto__";a:1:{s:5:"admin";b:1;}s:4:"name";s:1:"x";}']) {
      const out = normalize(Variables, { variables }) as { variables: Record<string, unknown> }
      assert.equal(out.variables.admin, undefined, variables)
      assert.equal(Object.getPrototypeOf(out.variables), Object.prototype)
      assert.deepEqual(out.variables, { name: 'x' })
    }
  })

  it('leaves too deep or oversized list strings as text, for validation to refuse', () => {
    const deepJson = '['.repeat(100_000) + ']'.repeat(100_000)
    const deepSerialized = 'a:1:{i:0;'.repeat(100_000) + 'N;' + '}'.repeat(100_000)
    for (const text of [deepJson, deepSerialized, 'a:1:{i:0;i:99999999999999999999;}', 'a:100000000:{i:0;N;}']) {
      assert.deepEqual(normalize(Emails, { emails: text }), { emails: text })
    }
  })
})
