import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseQueryString, QUERY_ERROR } from '../../../src/api/conventions/query.js'

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
    assert.match(String(parseQueryString('{"limit":')[QUERY_ERROR]), /not valid JSON/)
    assert.match(String(parseQueryString('[1,2]')[QUERY_ERROR]), /not valid JSON/)
  })
})
