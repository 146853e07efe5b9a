import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { LoginThrottle } from '../../../src/lib/login-throttle.js'

describe('LoginThrottle', () => {
  const make = () => {
    const clock = { now: 1_000_000 }
    return { clock, throttle: new LoginThrottle({ maxFailures: 3, maxFailuresPerIp: 5, windowMs: 60_000 }, () => clock.now) }
  }

  it('locks a client_id and IP pair after the allowed failures, until the oldest failure leaves the window', () => {
    const { clock, throttle } = make()
    for (let i = 0; i < 3; i++) {
      assert.equal(throttle.retryAfterSeconds('c', '1.1.1.1'), 0)
      throttle.recordFailure('c', '1.1.1.1')
      clock.now += 1000
    }
    assert.equal(throttle.retryAfterSeconds('c', '1.1.1.1'), 57)
    assert.equal(throttle.retryAfterSeconds('c', '2.2.2.2'), 0, 'the same client from another IP is not locked')
    clock.now += 57_000
    assert.equal(throttle.retryAfterSeconds('c', '1.1.1.1'), 0)
  })

  it('locks an IP that fails with many client ids', () => {
    const { throttle } = make()
    for (let i = 0; i < 5; i++) throttle.recordFailure(`c${i}`, '3.3.3.3')
    assert.ok(throttle.retryAfterSeconds('fresh', '3.3.3.3') > 0)
  })

  it('forgets a pair\'s failures after a success', () => {
    const { throttle } = make()
    throttle.recordFailure('c', '4.4.4.4')
    throttle.recordFailure('c', '4.4.4.4')
    throttle.recordSuccess('c', '4.4.4.4')
    throttle.recordFailure('c', '4.4.4.4')
    assert.equal(throttle.retryAfterSeconds('c', '4.4.4.4'), 0)
  })
})
