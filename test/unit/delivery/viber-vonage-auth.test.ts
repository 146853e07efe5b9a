// The Authorization header of Vonage requests: an application's RS256 JWT with the claims Vonage's SDK puts in it,
// signed once and shared until 5 of its 15 minutes are left (an injected clock), or Basic credentials.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { decodeProtectedHeader, jwtVerify } from 'jose'
import { applicationAuth, basicAuth } from '../../../src/delivery/viber/vonage-auth.js'
import { rsaPrivateKeyOf } from '../../../src/lib/pem.js'

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
const APPLICATION_ID = 'aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab'
const START = Date.UTC(2026, 0, 1, 12, 0, 0, 400)

function clockAt(ms: number) {
  const clock = { now: ms, advance: (s: number) => void (clock.now += s * 1000) }
  return clock
}
const tokenOf = async (header: string | Promise<string>) => (await header).replace(/^Bearer /, '')

describe('Vonage application auth', () => {
  it('sends an RS256 JWT of the application: application_id, iat, a random jti, exp 15 minutes on', async () => {
    const clock = clockAt(START)
    const auth = applicationAuth({ applicationId: APPLICATION_ID, privateKey }, () => clock.now)
    const header = await auth.header()
    assert.match(header, /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/)
    const token = await tokenOf(header)
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'RS256', typ: 'JWT' })
    const { payload } = await jwtVerify(token, publicKey, { algorithms: ['RS256'], currentDate: new Date(clock.now) })
    const iat = Math.floor(START / 1000)
    assert.deepEqual(Object.keys(payload).sort(), ['application_id', 'exp', 'iat', 'jti'])
    assert.deepEqual([payload.application_id, payload.iat, payload.exp], [APPLICATION_ID, iat, iat + 900])
    assert.match(payload.jti!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    assert.deepEqual(auth.secrets, [])
  })

  it('signs one token for every request until 5 of its 15 minutes are left, then a new one', async () => {
    const clock = clockAt(START)
    const auth = applicationAuth({ applicationId: APPLICATION_ID, privateKey }, () => clock.now)
    const first = await auth.header()
    // Requests at the same moment share the token being signed.
    const concurrent = await Promise.all(Array.from({ length: 20 }, () => auth.header()))
    assert.deepEqual(new Set(concurrent), new Set([first]))
    // iat is START (12:00:00.4) rounded down: at 12:09:59.9 the token has 5 min 0.1 s left and is kept; at
    // 12:10:00.0, exactly 5 min, it is replaced.
    clock.advance(599.5)
    assert.equal(await auth.header(), first)
    clock.advance(0.1)
    const second = await auth.header()
    assert.notEqual(second, first)
    const claims = (await jwtVerify(await tokenOf(second), publicKey, { currentDate: new Date(clock.now) })).payload
    const firstClaims = (await jwtVerify(await tokenOf(first), publicKey, { currentDate: new Date(START) })).payload
    assert.equal(claims.iat, Math.floor(clock.now / 1000))
    assert.notEqual(claims.jti, firstClaims.jti)
    // The first one still had 5 minutes: no request went out with a token about to expire.
    assert.equal(firstClaims.exp! - Math.floor(clock.now / 1000), 300)
    clock.advance(599)
    assert.equal(await auth.header(), second)
  })

  it('signs with a PKCS#1 key as well as a PKCS#8 one', async () => {
    const key = rsaPrivateKeyOf(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString())
    const token = await tokenOf(applicationAuth({ applicationId: APPLICATION_ID, privateKey: key }).header())
    assert.equal((await jwtVerify(token, publicKey)).payload.application_id, APPLICATION_ID)
  })
})

describe('Vonage Basic auth', () => {
  it('sends the account credentials, and names them as secrets', () => {
    const auth = basicAuth('abcd1234:s3cret')
    assert.equal(auth.header(), `Basic ${Buffer.from('abcd1234:s3cret').toString('base64')}`)
    assert.deepEqual(auth.secrets, ['abcd1234:s3cret', 'abcd1234', 's3cret'])
  })
})
