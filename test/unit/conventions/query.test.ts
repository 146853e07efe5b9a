import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseQueryString, UNPARSABLE_QUERY } from '../../../src/api/conventions/query.js'

describe('parseQueryString', () => {
  it('reads PHP bracket forms with + as a space', () => {
    assert.deepEqual(parseQueryString('phones[0]=380631234567&route[UA]=national&name=a+b'), {
      phones: ['380631234567'],
      route: { UA: 'national' },
      name: 'a b',
    })
  })

  it('reads URL-encoded JSON, keeping + & and = inside its values', () => {
    assert.deepEqual(parseQueryString(encodeURIComponent('{"a":"x&y=z"}').replace('%2B', '+')), { a: 'x&y=z' })
    assert.deepEqual(parseQueryString('{"a":"1+1"}'), { a: '1+1' })
    assert.deepEqual(parseQueryString('{}'), {})
    assert.deepEqual(parseQueryString('[]'), {})
  })

  it('marks JSON-looking query strings that do not parse', () => {
    assert.equal(parseQueryString('{"limit":')[UNPARSABLE_QUERY], true)
    assert.equal(parseQueryString('[1,2]')[UNPARSABLE_QUERY], true)
  })
})
