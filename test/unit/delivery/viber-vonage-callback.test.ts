// Vonage status callbacks: a callback signed as Vonage signs them (test/helpers/vonage.ts) becomes a report; every
// forgery, stale or replayed token, and body that is not one of our Viber statuses is refused.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPair, SignJWT } from 'jose'
import { createHash, createHmac } from 'node:crypto'
import { SeenTokens, verifyVonageCallback, type VonageCallbackOptions } from '../../../src/delivery/viber/vonage-callback.js'
import { signVonageCallback, type SignOptions } from '../../helpers/vonage.js'

const SECRET = 'vonage-signature-secret-0123456789abcdef'
const API_KEY = 'vonage-key'
const NOW = Date.parse('2026-03-01T12:00:00Z')
const STATUS = {
  message_uuid: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
  to: '380501234567',
  from: 'Tidings',
  timestamp: '2026-03-01T11:59:58.000Z',
  status: 'delivered',
  channel: 'viber_service',
  client_ref: '42',
  usage: { currency: 'EUR', price: '0.0085' },
}

const options = (extra: Partial<VonageCallbackOptions> = {}): VonageCallbackOptions => ({ signatureSecret: SECRET, apiKey: API_KEY, now: () => NOW, seen: new SeenTokens(), ...extra })
const sign = (content: Record<string, unknown> | string, forged: Partial<SignOptions> = {}) =>
  signVonageCallback(content, { signatureSecret: SECRET, apiKey: API_KEY, iat: NOW / 1000 - 2, ...forged })
const verify = (signed: { body: string; authorization: string }, extra: Partial<VonageCallbackOptions> = {}) =>
  verifyVonageCallback(Buffer.from(signed.body), signed.authorization, options(extra))
const refusal = async (signed: { body: string; authorization: string }, extra: Partial<VonageCallbackOptions> = {}) => {
  const result = await verify(signed, extra)
  return result.ok ? assert.fail(`accepted: ${JSON.stringify(result.report)}`) : result.reason
}

describe('Vonage callback verification', () => {
  it('turns a validly signed status into our message id, the provider id, the state and its time', async () => {
    const result = await verify(sign(STATUS))
    assert.ok(result.ok)
    assert.deepEqual(result.report, { messageId: 42, providerId: STATUS.message_uuid, state: 'delivered', at: Date.parse(STATUS.timestamp) })
  })

  it('reads every documented status, and the failure reason in the v1 and v0.1 shapes', async () => {
    for (const status of ['submitted', 'delivered', 'read', 'rejected', 'undeliverable']) {
      const result = await verify(sign({ ...STATUS, status }))
      assert.equal(result.ok && result.report.state, status)
    }
    const v1 = await verify(sign({ ...STATUS, status: 'undeliverable', error: { type: 'https://developer.vonage.com/api-errors/messages#1300', title: 1300, detail: 'Not part of the provider network', instance: 'x' } }))
    assert.equal(v1.ok && v1.report.error, '1300: Not part of the provider network')
    const v01 = await verify(sign({ ...STATUS, status: 'rejected', error: { code: 1360, reason: 'TTL was activated' } }))
    assert.equal(v01.ok && v01.report.error, '1360: TTL was activated')
  })

  it('refuses a token signed with another secret', async () => {
    assert.match(await refusal(sign(STATUS, { signatureSecret: 'another-secret-0123456789abcdef' })), /token refused/)
  })

  it('refuses an unsigned token (alg none), even one whose claims are right', async () => {
    assert.match(await refusal(sign(STATUS, { alg: 'none' })), /token refused/)
  })

  it('refuses tokens of another algorithm: RS256 with a key of the attacker, HS512 with our secret', async () => {
    const body = JSON.stringify(STATUS)
    const claims = { api_key: API_KEY, payload_hash: createHash('sha256').update(body).digest('hex'), jti: 'j-rs', iss: 'Vonage' }
    const { privateKey } = await generateKeyPair('RS256')
    const rs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).setIssuedAt(NOW / 1000).sign(privateKey)
    assert.match(await refusal({ body, authorization: `Bearer ${rs256}` }), /token refused/)
    const hs512 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS512' }).setIssuedAt(NOW / 1000).sign(new TextEncoder().encode(SECRET))
    assert.match(await refusal({ body, authorization: `Bearer ${hs512}` }), /token refused/)
  })

  it('refuses a token with a forged signature, an expired one, one not valid yet, and one with an extension it does not know', async () => {
    const signed = sign(STATUS)
    const [header, payload, signature] = signed.authorization.slice('Bearer '.length).split('.') as [string, string, string]
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`
    assert.match(await refusal({ ...signed, authorization: `Bearer ${header}.${payload}.${flipped}` }), /token refused/)
    assert.match(await refusal({ ...signed, authorization: `Bearer ${header}.${payload}.${signature.slice(0, 20)}` }), /token refused/)
    assert.match(await refusal({ ...signed, authorization: `Bearer ${header}.${payload}.` }), /token refused/)
    assert.match(await refusal(sign(STATUS, { claims: { exp: NOW / 1000 - 1 } })), /token refused/)
    assert.match(await refusal(sign(STATUS, { claims: { exp: 'never' } })), /token refused/)
    assert.match(await refusal(sign(STATUS, { claims: { nbf: NOW / 1000 + 60 } })), /token refused/)
    assert.ok((await verify(sign(STATUS, { claims: { exp: NOW / 1000 + 60, nbf: NOW / 1000 - 60 } }))).ok)
    const body = JSON.stringify(STATUS)
    const claims = { api_key: API_KEY, payload_hash: createHash('sha256').update(body).digest('hex'), jti: 'j-crit', iss: 'Vonage' }
    const critical = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', crit: ['x-vonage'], 'x-vonage': 1 }).setIssuedAt(NOW / 1000).sign(new TextEncoder().encode(SECRET), { crit: { 'x-vonage': true } })
    assert.match(await refusal({ body, authorization: `Bearer ${critical}` }), /token refused/)
    // A header that is not JSON, and claims that are not an object, signed with our secret.
    const hmac = (input: string) => createHmac('sha256', SECRET).update(input).digest('base64url')
    const b64 = (text: string) => Buffer.from(text).toString('base64url')
    for (const input of [`${b64('not json')}.${payload}`, `${header}.${b64('[1]')}`, `${header}.${b64('not json')}`]) {
      assert.match(await refusal({ body, authorization: `Bearer ${input}.${hmac(input)}` }), /token refused/)
    }
  })

  it('refuses a body changed after signing, and a token without payload_hash', async () => {
    const signed = sign(STATUS)
    assert.equal(await refusal({ ...signed, body: signed.body.replace('"delivered"', '"read"') }), 'payload_hash does not match the body')
    assert.equal(await refusal(sign(STATUS, { claims: { payload_hash: undefined } })), 'no payload_hash')
  })

  it('refuses a stale token and one issued in the future, and takes a little clock skew', async () => {
    assert.equal(await refusal(sign(STATUS, { iat: NOW / 1000 - 301 })), 'token too old')
    assert.equal(await refusal(sign(STATUS, { iat: NOW / 1000 + 120 })), 'token issued in the future')
    assert.equal(await refusal(sign(STATUS, { claims: { iat: undefined } })), 'no iat')
    assert.ok((await verify(sign(STATUS, { iat: NOW / 1000 + 30 }))).ok)
    assert.ok((await verify(sign(STATUS, { iat: NOW / 1000 - 60 }), { maxAgeSeconds: 60 })).ok)
  })

  it('refuses a token for another API key', async () => {
    assert.equal(await refusal(sign(STATUS, { apiKey: 'someone-else' })), 'api_key is not ours')
  })

  it('refuses a token used twice, unless the first use was released (the report could not be stored)', async () => {
    const seen = new SeenTokens()
    const signed = sign(STATUS, { jti: 'once' })
    const first = await verify(signed, { seen })
    assert.ok(first.ok)
    assert.equal(await refusal(signed, { seen }), 'token already used')
    first.release()
    assert.ok((await verify(signed, { seen })).ok, 'taken again once released')
    assert.equal(await refusal(sign(STATUS, { claims: { jti: undefined } })), 'no jti')
  })

  it('refuses a signed body that is not one of our Viber statuses', async () => {
    assert.equal(await refusal(sign('not json')), 'the body is not JSON')
    assert.equal(await refusal(sign('[1,2]')), 'the body is not an object')
    assert.equal(await refusal(sign({ ...STATUS, status: 'clicked' })), 'unknown status')
    assert.equal(await refusal(sign({ ...STATUS, channel: 'sms' })), 'not a Viber callback')
    assert.equal(await refusal(sign({ ...STATUS, message_uuid: undefined })), 'no message_uuid')
    for (const clientRef of [undefined, 42, '', '0', '-1', '4.2', '042', 'task42:rcpt7', '12345678901234567', '9007199254740993']) {
      assert.equal(await refusal(sign({ ...STATUS, client_ref: clientRef })), 'client_ref is not one of our message ids', String(clientRef))
    }
    // An inbound message (a user's reply) has no status.
    assert.equal(await refusal(sign({ message_uuid: 'x', to: 'Tidings', from: '380501234567', channel: 'viber_service', message_type: 'text', text: 'hi' })), 'unknown status')
  })

  it('refuses a missing or malformed Authorization header, and a huge body or header before any work', async () => {
    const signed = sign(STATUS)
    for (const authorization of [undefined, '', signed.authorization.slice(7), `Basic ${signed.authorization.slice(7)}`, `Bearer ${'a'.repeat(5000)}.b.c`, 'Bearer a.b']) {
      assert.equal(await refusal({ ...signed, authorization: authorization as string }), 'no bearer token')
    }
    const huge = sign({ ...STATUS, padding: 'x'.repeat(20_000) })
    assert.equal(await refusal(huge), 'body too large')
  })
})

describe('seen tokens', () => {
  it('forgets the ids that expired, and the oldest id when full', () => {
    const seen = new SeenTokens(2)
    assert.ok(seen.take('a', 100, 0))
    assert.ok(seen.take('b', 200, 0))
    assert.ok(!seen.take('a', 100, 50), 'a replay')
    assert.ok(seen.take('c', 300, 60), 'full: the oldest (a) makes room')
    assert.ok(!seen.take('c', 300, 70))
    assert.ok(seen.take('a', 400, 70), 'a was forgotten (b makes room)')
    assert.ok(seen.take('x', 500, 350), 'c expired at 300')
    assert.equal(seen.size, 2)
    assert.ok(seen.take('c', 600, 350))
  })
})
