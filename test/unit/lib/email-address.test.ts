// The stored form of addresses, and the fast path for plain addresses never accepting what the full
// check (validator's isEmail) refuses.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { isEmailBySpec, normalizeEmail } from '../../../src/lib/email-address.js'

describe('normalizeEmail', () => {
  it('trims, keeps the local part and lower-cases the domain', () => {
    assert.equal(normalizeEmail('  John.Smith@Example.COM '), 'John.Smith@example.com')
    assert.equal(normalizeEmail("o'neil+tag@sub.example.org"), "o'neil+tag@sub.example.org")
    assert.equal(normalizeEmail('имя@пример.рф'), 'имя@пример.рф', 'international addresses go through the full check')
  })

  it('refuses what is not an address', () => {
    for (const bad of ['', 'plain', 'a@b', 'a@localhost', 'a@1.2.3.4', 'a..b@example.com', '.a@example.com', 'a@-example.com', 'a@example.c0m', `${'x'.repeat(65)}@example.com`, 'a b@example.com', 'a@exam_ple.com', 42]) {
      assert.equal(normalizeEmail(bad), undefined, String(bad))
    }
  })

  it('accepts through the fast path only addresses the full check accepts', () => {
    const alphabet = "aZ09.-_+'!#$%&*/=?^`{|}~@"
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    let accepted = 0
    for (let i = 0; i < 20000; i++) {
      const pick = (n: number) => Array.from({ length: 1 + Math.floor(random() * n) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')
      const address = `${pick(10)}@${pick(8)}.${random() < 0.8 ? 'com' : pick(3)}`
      if (normalizeEmail(address) !== undefined) {
        accepted++
        assert.ok(isEmailBySpec(address), `the fast path accepted ${address}, which isEmail refuses`)
      }
    }
    assert.ok(accepted > 100, `enough accepted samples to mean something (${accepted})`)
  })
})
