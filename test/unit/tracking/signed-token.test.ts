import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { macMatches, macMatchesAny, macOf, signIssuedToken, signToken, verifyIssuedToken, verifyToken } from '../../../src/tracking/signed-token.js'

const key = Buffer.alloc(32, 7)
const otherKey = Buffer.alloc(32, 8)

/** The token with the character at `index` replaced by another base64url character. */
function flip(token: string, index: number): string {
  const replacement = token[index] === 'A' ? 'B' : 'A'
  return token.slice(0, index) + replacement + token.slice(index + 1)
}

describe('signed tokens', () => {
  it('round-trips a payload signed for a purpose, in URL-safe characters', () => {
    for (const payload of ['42', '', 'contact:1/2?x=y&z', 'заявка ✓']) {
      const token = signToken(key, 'confirm', payload)
      assert.match(token, /^[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+$/)
      assert.equal(verifyToken([key], 'confirm', token), payload)
    }
  })

  it('refuses a token made for another purpose or with another key', () => {
    const token = signToken(key, 'confirm', '42')
    assert.equal(verifyToken([key], 'unsubscribe', token), undefined)
    assert.equal(verifyToken([otherKey], 'confirm', token), undefined)
  })

  it('refuses every single-character change, in the payload and in the signature', () => {
    const token = signToken(key, 'confirm', '123456')
    for (let i = 0; i < token.length; i++) {
      if (token[i] === '.') continue
      assert.equal(verifyToken([key], 'confirm', flip(token, i)), undefined, `changed at ${i}: ${flip(token, i)}`)
    }
  })

  it('refuses a swapped payload, a truncated or padded signature, and things that are not tokens', () => {
    const token = signToken(key, 'confirm', '1')
    const [, mac] = token.split('.')
    assert.equal(verifyToken([key], 'confirm', `${Buffer.from('2').toString('base64url')}.${mac}`), undefined)
    assert.equal(verifyToken([key], 'confirm', token.slice(0, -1)), undefined)
    assert.equal(verifyToken([key], 'confirm', `${token}A`), undefined)
    assert.equal(verifyToken([key], 'confirm', `${token}=`), undefined)
    assert.equal(verifyToken([key], 'confirm', `M Q.${mac}`), undefined, 'stray characters in the payload')
    assert.equal(Buffer.from('MR', 'base64url').toString(), '1', 'MR is a non-canonical spelling of "1"')
    assert.equal(verifyToken([key], 'confirm', `MR.${mac}`), undefined, 'a non-canonical payload spelling')
    for (const junk of ['', '.', 'abc', '..', `${mac}`]) assert.equal(verifyToken([key], 'confirm', junk), undefined, junk)
  })

  it('keeps the purpose and the payload apart: ("ab", "c") and ("a", "bc") sign differently', () => {
    assert.notEqual(macOf(key, 'ab', 'c'), macOf(key, 'a', 'bc'))
  })

  it('compares MACs only when they match exactly', () => {
    const mac = macOf(key, 'code', '1:12345678')
    assert.ok(macMatches(mac, macOf(key, 'code', '1:12345678')))
    assert.ok(!macMatches(mac, macOf(key, 'code', '1:12345679')))
    assert.ok(!macMatches(mac, mac.slice(1)))
  })

  it('verifies with any of the accepted keys, so a rotated key keeps its links working', () => {
    const token = signToken(otherKey, 'confirm', '42')
    assert.equal(verifyToken([key, otherKey], 'confirm', token), '42')
    assert.equal(verifyToken([key], 'confirm', token), undefined)
    assert.ok(macMatchesAny([key, otherKey], 'code', '1:2', macOf(otherKey, 'code', '1:2')))
    assert.ok(!macMatchesAny([key], 'code', '1:2', macOf(otherKey, 'code', '1:2')))
  })

  it('carries a signed issue time, and tells tokens made before issue times from forged ones', () => {
    const at = Date.UTC(2025, 0, 2, 3, 4, 5, 678)
    const token = signIssuedToken(key, 'confirm', '42', at)
    assert.deepEqual(verifyIssuedToken([key], 'confirm', token), { payload: '42', issuedAtMs: Date.UTC(2025, 0, 2, 3, 4, 5) })
    assert.deepEqual(verifyIssuedToken([key], 'confirm', signToken(key, 'confirm', '42')), { payload: '42', issuedAtMs: undefined })
    const [, mac] = token.split('.')
    const later = Buffer.from(`42@${Math.floor(at / 1000) + 86_400}`).toString('base64url')
    assert.equal(verifyIssuedToken([key], 'confirm', `${later}.${mac}`), undefined, 'the issue time cannot be moved')
    assert.equal(verifyIssuedToken([key], 'confirm', signToken(key, 'confirm', '42@soon')), undefined)
  })
})
