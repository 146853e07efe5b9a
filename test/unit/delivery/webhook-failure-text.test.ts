// A failed webhook request's text names the host of the customer's URL, never the address it resolved to.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { failureText, withoutAddresses } from '../../../src/delivery/webhooks/failure-text.js'

/** A socket error shaped the way Node raises it from connect(). */
function socketError(code: string, address: string, port: number): Error {
  return Object.assign(new Error(`connect ${code} ${address}:${port}`), { code, syscall: 'connect', address, port, errno: -111 })
}

describe('failureText', () => {
  it('names the host and port in place of the address Node connected to', () => {
    const target = new URL('https://hooks.internal.example/in')
    assert.equal(failureText(socketError('ECONNREFUSED', '10.1.2.3', 443), target), 'connect ECONNREFUSED hooks.internal.example:443')
    assert.equal(failureText(socketError('EHOSTUNREACH', 'fd00::5', 8443), new URL('http://svc.example:8443/')), 'connect EHOSTUNREACH svc.example:8443')
  })

  it('reads the first attempt of an AggregateError, whose own message may be empty (autoSelectFamily)', () => {
    const both = Object.assign(new AggregateError([socketError('ECONNREFUSED', '::1', 8080), socketError('ECONNREFUSED', '127.0.0.1', 8080)], ''), { code: 'ECONNREFUSED' })
    assert.equal(failureText(both, new URL('http://localhost:8080/hook')), 'connect ECONNREFUSED localhost:8080')
  })

  it('keeps errors without an address as they are, and an address the customer typed', () => {
    assert.equal(failureText(new Error('timed out after 300 ms'), new URL('http://a.example/')), 'timed out after 300 ms')
    assert.equal(failureText(socketError('ECONNREFUSED', '203.0.113.9', 80), new URL('http://203.0.113.9/')), 'connect ECONNREFUSED 203.0.113.9:80')
  })
})

describe('withoutAddresses', () => {
  it('replaces IPv4, IPv6 and mapped addresses, with or without a port, by the host name', () => {
    const target = new URL('https://hooks.example/')
    assert.equal(withoutAddresses('read ECONNRESET 10.0.0.5:443.', target), 'read ECONNRESET hooks.example:443.')
    assert.equal(withoutAddresses('address 10.0.0.5 is private', target), 'address hooks.example is private')
    assert.equal(withoutAddresses('peer ::ffff:192.168.1.4 and fe80::1 went away at 12:30:05', target), 'peer hooks.example and hooks.example went away at 12:30:05')
  })
})

describe('withoutAddresses on long runs of dots and colons', () => {
  // A webhook host of ~2,000 dots fails dns.lookup with EINVAL and a message holding the host, and the text is
  // rewritten on every read of the delivery log (up to 200 rows). The old pattern, with nested repetition,
  // took 1.6 s on 20,000 dots and 14 s on 60,000; a linear scan takes about 1 ms. The bound is a DoS bound:
  // 200 ms is two orders of magnitude above the linear scan and two below the quadratic one.
  const MAX_MS = 200

  for (const [name, run] of [
    ['dots', '.'.repeat(60_000)],
    ['colons', ':'.repeat(60_000)],
  ] as const) {
    it(`rewrites 60,000 ${name} at once`, () => {
      const text = `getaddrinfo EINVAL ${run} at 10.0.0.5:443.`
      const started = performance.now()
      const shown = withoutAddresses(text, new URL('https://hooks.example/'))
      const elapsed = performance.now() - started
      assert.equal(shown, `getaddrinfo EINVAL ${run} at hooks.example:443.`)
      assert.ok(elapsed < MAX_MS, `took ${elapsed.toFixed(0)} ms`)
    })
  }
})
