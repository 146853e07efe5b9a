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

  it('counts an IPv4-mapped IPv6 address as its IPv4 address, and every address of an IPv6 /64 as one client', () => {
    const { throttle } = make()
    for (let i = 0; i < 3; i++) throttle.recordFailure(`c${i}`, '::ffff:5.5.5.5')
    for (let i = 0; i < 2; i++) throttle.recordFailure(`d${i}`, '5.5.5.5')
    assert.ok(throttle.retryAfterSeconds('fresh', '5.5.5.5') > 0)
    for (let i = 1; i <= 5; i++) throttle.recordFailure(`c${i}`, `2001:db8:0:7:${i}::1`)
    assert.ok(throttle.retryAfterSeconds('fresh', '2001:db8:0:7:ffff::') > 0)
    assert.equal(throttle.retryAfterSeconds('fresh', '2001:db8:0:8::1'), 0)
  })
})
