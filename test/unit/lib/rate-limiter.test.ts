import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { RateLimiter } from '../../../src/lib/rate-limiter.js'

describe('rate limiter', () => {
  it('lets one second of units through at once, then makes callers wait for the refill', () => {
    let now = 0
    const limiter = new RateLimiter(100, () => now)
    assert.equal(limiter.reserve(100), 0, 'a full bucket')
    assert.equal(limiter.reserve(50), 500, '50 more units need half a second')
    now = 500
    assert.equal(limiter.reserve(0), 0, 'the debt is paid after the wait')
    now = 2500
    assert.equal(limiter.reserve(100), 0, 'an idle bucket refills, but to one second of units at most')
    assert.equal(limiter.reserve(1), 10)
  })

  it('never waits with a rate of 0 (no limit)', () => {
    const limiter = new RateLimiter(0, () => 0)
    assert.equal(limiter.reserve(1_000_000), 0)
  })
})
