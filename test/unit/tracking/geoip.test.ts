// Country of an IP address from the shipped GeoLite2 data.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { countryOfIp } from '../../../src/tracking/geoip.js'

describe('countryOfIp', () => {
  it('finds the country of public IPv4 addresses', () => {
    assert.equal(countryOfIp('8.8.8.8'), 'US')
    assert.equal(countryOfIp(' 8.8.8.8 '), 'US')
    // Cloudflare's anycast address: GeoLite2 gives it no country today; whatever it says must be alpha-2.
    const cloudflare = countryOfIp('1.1.1.1')
    assert.ok(cloudflare === undefined || /^[A-Z]{2}$/.test(cloudflare), String(cloudflare))
  })

  it('finds the country of public IPv6 addresses, and of IPv4 ones written as IPv6', () => {
    assert.equal(countryOfIp('2001:4860:4860::8888'), 'US')
    assert.equal(countryOfIp('::ffff:8.8.8.8'), 'US')
    assert.equal(countryOfIp('::FFFF:8.8.8.8'), 'US')
  })

  it('has no country for private, loopback and reserved addresses', () => {
    for (const ip of ['127.0.0.1', '10.0.0.1', '192.168.1.1', '172.16.0.1', '100.64.0.1', '169.254.1.1', '::1', 'fe80::1', 'fc00::1', '::ffff:10.0.0.1']) {
      assert.equal(countryOfIp(ip), undefined, ip)
    }
  })

  it('has no country for what is not an address', () => {
    for (const ip of ['', 'localhost', '8.8.8', '999.1.1.1', 'not an ip']) assert.equal(countryOfIp(ip), undefined, ip)
  })
})
