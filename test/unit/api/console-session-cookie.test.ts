// The console session cookie's attributes and reading: over https it is Secure with the __Host- prefix (no sibling
// subdomain can plant or shadow it); only a value shaped like our ids is read back, whatever else the header holds.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sessionCookie } from '../../../src/api/console/session-cookie.js'

const ID = 'A'.repeat(21) + '_' + 'b'.repeat(20) + '-'

describe('console session cookie', () => {
  it('is HttpOnly, SameSite=Strict and Path=/ over http, without Secure', () => {
    const cookie = sessionCookie({ publicUrl: 'http://localhost:8080' })
    assert.equal(cookie.set(ID), `tidings_console=${ID}; Path=/; HttpOnly; SameSite=Strict`)
    assert.equal(cookie.clear(), 'tidings_console=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict')
  })

  it('is Secure and __Host- prefixed over https', () => {
    const cookie = sessionCookie({ publicUrl: 'https://mail.example.com' })
    assert.equal(cookie.set(ID), `__Host-tidings_console=${ID}; Path=/; HttpOnly; SameSite=Strict; Secure`)
    // A plain-named cookie (planted over http, or by a sibling subdomain) is not read on an https install.
    assert.equal(cookie.read(`tidings_console=${ID}`), undefined)
    assert.equal(cookie.read(`__Host-tidings_console=${ID}`), ID)
  })

  it('reads only its own name and only a session-id-shaped value', () => {
    const cookie = sessionCookie({ publicUrl: 'http://localhost:8080' })
    assert.equal(cookie.read(`other=1; tidings_console=${ID}; more=2`), ID)
    assert.equal(cookie.read(`xtidings_console=${ID}`), undefined)
    assert.equal(cookie.read(`tidings_console=${ID}x`), undefined)
    assert.equal(cookie.read('tidings_console=../../etc'), undefined)
    assert.equal(cookie.read(undefined), undefined)
    assert.equal(cookie.read(''), undefined)
  })
})
