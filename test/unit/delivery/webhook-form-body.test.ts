import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import qs from 'qs'
import { formBody } from '../../../src/delivery/webhooks/form-body.js'

const batch = [
  {
    event: 'open',
    email: 'ann+news@example.com',
    timestamp: 1700000000,
    unsubscribed: false,
    opened: true,
    reason: null,
    tags: ['vip', 'new user'],
    variables: { 'first name': 'Ann', 'a&b=c': 'é', deep: { x: '1' } },
    empty: [],
  },
  { event: 'click', email: 'bob@example.com', link: 'https://example.com/p?q=1&r=2#frag' },
]

// What PHP 8.2 writes for the same batch: php -r 'echo http_build_query([[...], [...]]);'
const PHP_HTTP_BUILD_QUERY =
  '0%5Bevent%5D=open&0%5Bemail%5D=ann%2Bnews%40example.com&0%5Btimestamp%5D=1700000000&0%5Bunsubscribed%5D=0' +
  '&0%5Bopened%5D=1&0%5Btags%5D%5B0%5D=vip&0%5Btags%5D%5B1%5D=new+user&0%5Bvariables%5D%5Bfirst+name%5D=Ann' +
  '&0%5Bvariables%5D%5Ba%26b%3Dc%5D=%C3%A9&0%5Bvariables%5D%5Bdeep%5D%5Bx%5D=1&1%5Bevent%5D=click' +
  '&1%5Bemail%5D=bob%40example.com&1%5Blink%5D=https%3A%2F%2Fexample.com%2Fp%3Fq%3D1%26r%3D2%23frag'

describe('webhook form body', () => {
  it('writes the batch as PHP http_build_query does', () => {
    assert.equal(formBody(batch), PHP_HTTP_BUILD_QUERY)
  })

  it('reads back with qs as PHP bracket notation, nested arrays and objects included', () => {
    assert.deepEqual(qs.parse(formBody(batch)), {
      0: {
        event: 'open',
        email: 'ann+news@example.com',
        timestamp: '1700000000',
        unsubscribed: '0',
        opened: '1',
        tags: ['vip', 'new user'],
        variables: { 'first name': 'Ann', 'a&b=c': 'é', deep: { x: '1' } },
      },
      1: { event: 'click', email: 'bob@example.com', link: 'https://example.com/p?q=1&r=2#frag' },
    })
  })

  it('reads back with a plain form parser as `index[field]` names', () => {
    const flat = [{ event: 'open', email: 'a+b@c.com', subject: 'Hi & bye = 100%' }, { event: 'spam', email: 'd@e.com' }]
    assert.deepEqual(
      [...new URLSearchParams(formBody(flat))],
      [
        ['0[event]', 'open'],
        ['0[email]', 'a+b@c.com'],
        ['0[subject]', 'Hi & bye = 100%'],
        ['1[event]', 'spam'],
        ['1[email]', 'd@e.com'],
      ],
    )
  })

  it('keeps every event of a full batch of 100, in order', () => {
    const events = Array.from({ length: 100 }, (_, i) => ({ event: 'delivered', email: `u${i}@example.com` }))
    const parsed = qs.parse(formBody(events)) as Record<string, { email: string }>
    assert.deepEqual(
      Object.keys(parsed).map((key) => [key, parsed[key]?.email]),
      events.map((event, i) => [String(i), event.email]),
    )
  })
})
