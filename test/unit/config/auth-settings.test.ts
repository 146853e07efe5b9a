// The settings that bound credentials and name the client's address: token lifetime and trusted proxies.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { loadConfig } from '../../../src/config/load.js'

describe('authentication settings', () => {
  it('accepts a token lifetime up to one day and refuses a longer one', () => {
    assert.equal(loadConfig({ env: { TIDINGS_TOKEN_TTL: '86400' } }).tokenTtlSeconds, 86400)
    assert.throws(() => loadConfig({ env: { TIDINGS_TOKEN_TTL: '86401' } }), /tokenTtlSeconds \(TIDINGS_TOKEN_TTL\)/)
  })

  it('reads TIDINGS_TRUST_PROXY as off, a hop count or a list of proxy addresses, never "trust everyone"; anything else refuses to start', () => {
    const trustProxy = (value: string) => loadConfig({ env: { TIDINGS_TRUST_PROXY: value } }).trustProxy
    assert.equal(loadConfig({ env: {} }).trustProxy, false)
    assert.equal(trustProxy('false'), false)
    assert.equal(trustProxy('0'), false)
    assert.equal(trustProxy('true'), 1, '`true` means the one reverse proxy in front, not any X-Forwarded-For')
    assert.equal(trustProxy('1'), 1)
    assert.equal(trustProxy('2'), 2)
    assert.deepEqual(trustProxy(' 10.0.0.0/8, 192.0.2.1 ,2001:db8::/32,loopback'), ['10.0.0.0/8', '192.0.2.1', '2001:db8::/32', 'loopback'])
    assert.equal(loadConfig({ overrides: { trustProxy: true as never } }).trustProxy, 1, 'a config file or override saying true')
    // Anything else refuses to start rather than guess.
    for (const value of ['yes', '-1', '1.5', '10.0.0.300/8', '10.0.0.0/33', '10.0.0.0/8,,', 'proxy.example.com', '*']) {
      assert.throws(() => loadConfig({ env: { TIDINGS_TRUST_PROXY: value } }), /trustProxy \(TIDINGS_TRUST_PROXY\)/, value)
    }
  })
})
