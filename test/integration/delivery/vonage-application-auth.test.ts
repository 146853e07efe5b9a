// The Vonage Viber channel authenticated as a Vonage application (a Bearer RS256 JWT) against the Messages API
// stand-in on loopback, which verifies the token with the application's public key: taken with the right key and
// id, one token for many requests; refused (401, retried later) with a wrong key, a wrong id or an expired token,
// with no key material in the reason. Keys are made at test time.
import { afterEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createPrivateKey, createSecretKey } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { SignJWT, jwtVerify } from 'jose'
import { pino } from 'pino'
import type { OutboundViber, ViberSendResult } from '../../../src/delivery/viber/channel.js'
import { vonageChannel, type VonageChannelOptions } from '../../../src/delivery/viber/vonage.js'
import { applicationKeys, startVonage } from '../../helpers/vonage.js'

const log = pino({ level: 'silent' })
const WEBHOOK = 'http://127.0.0.1:9/viber/callbacks/vonage'
const application = applicationKeys()
const privateKey = createPrivateKey(application.privateKeyPem)
/** A line from the middle of the PEM: no reason may show any of it. */
const KEY_LINE = application.privateKeyPem.split('\n')[5]!

let cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  cleanups = []
})

const viber = (messageId: number): OutboundViber => ({
  messageId,
  to: `38050${String(messageId).padStart(7, '0')}`,
  from: 'Tidings',
  category: 'promotion',
  text: 'Sale today',
  imageUrl: null,
  button: null,
  ttlSeconds: 3600,
})
const failure = (result: ViberSendResult | undefined) => (result && !result.ok ? result : assert.fail(`not a failure: ${JSON.stringify(result)}`))

async function setup(channelOptions: Partial<VonageChannelOptions> = {}) {
  const vonage = await startVonage({ publicKey: application.publicKey })
  cleanups.push(() => vonage.close())
  const channel = vonageChannel({
    url: vonage.url,
    application: { applicationId: vonage.applicationId, privateKey },
    webhookUrl: WEBHOOK,
    concurrency: 4,
    timeoutMs: 5000,
    log,
    ...channelOptions,
  })
  cleanups.push(() => channel.close())
  return { vonage, channel }
}

/** The reason must name no part of the key, the token sent, or its signature. */
function assertNoKeyMaterial(reason: string, tokens: string[]) {
  for (const secret of [KEY_LINE, ...tokens, ...tokens.map((t) => t.split('.')[2]!)]) assert.ok(!reason.includes(secret), `key material in: ${reason}`)
}

describe('Vonage Viber channel with application auth', () => {
  it('is taken with the application\'s JWT, one token for every request', async () => {
    const { vonage, channel } = await setup()
    const results = await channel.send(Array.from({ length: 12 }, (_, i) => viber(i + 1)))
    assert.ok(results.every((r) => r.ok), JSON.stringify(results))
    assert.equal(vonage.accepted, 12)
    const headers = new Set(vonage.requests.map((r) => r.headers.authorization))
    assert.equal(headers.size, 1, 'signed once, not per request')
    const token = [...headers][0]!.replace(/^Bearer /, '')
    const { payload, protectedHeader } = await jwtVerify(token, application.publicKey)
    assert.equal(protectedHeader.alg, 'RS256')
    assert.equal(payload.application_id, vonage.applicationId)
  })

  it('prefers the application to Basic credentials given as well', async () => {
    const { vonage, channel } = await setup({ credentials: 'vonage-key:vonage-api-secret' })
    assert.ok((await channel.send([viber(1)]))[0]!.ok)
    assert.match(vonage.requests[0]!.headers.authorization!, /^Bearer /)
  })

  it('retries later when Vonage refuses the token: another key, another application, an expired token', async () => {
    const other = createPrivateKey(applicationKeys().privateKeyPem)
    const cases: [Partial<VonageChannelOptions>, RegExp][] = [
      [{ application: { applicationId: 'aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab', privateKey: other } }, /ERR_JWS_SIGNATURE_VERIFICATION_FAILED/],
      [{ application: { applicationId: '11111111-2222-4333-8444-555555555555', privateKey } }, /wrong application_id/],
      // Its clock an hour behind: the token expired 45 minutes ago.
      [{ now: () => Date.now() - 3600_000 }, /ERR_JWT_EXPIRED/],
    ]
    for (const [options, why] of cases) {
      const { vonage, channel } = await setup(options)
      const result = failure((await channel.send([viber(1)]))[0])
      assert.equal(result.retryable, true)
      assert.match(result.reason, /^HTTP 401: Unauthorized: You did not provide correct credentials/)
      assert.match(result.reason, why)
      assertNoKeyMaterial(result.reason, vonage.requests.map((r) => r.headers.authorization!.replace(/^Bearer /, '')))
      assert.equal(vonage.accepted, 0)
    }
  })

  it('never shows the token in a reason, even when the provider echoes it', async () => {
    const server = http.createServer((request, response) => {
      request.resume()
      const detail = `Bad token ${request.headers.authorization} (${request.headers.authorization?.split('.')[2]})`
      response.writeHead(401, { 'content-type': 'application/problem+json' })
      response.end(JSON.stringify({ title: 'Unauthorized', detail }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`
    const channel = vonageChannel({ url, application: { applicationId: 'aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab', privateKey }, webhookUrl: WEBHOOK, concurrency: 1, timeoutMs: 5000, log })
    cleanups.push(() => channel.close())
    const [result] = await channel.send([viber(1)])
    const reason = failure(result).reason
    assert.equal(reason, 'HTTP 401: Unauthorized: Bad token *** (***)')
  })
})

describe('Vonage stand-in with an application', () => {
  it('refuses a token of another algorithm, and still takes Basic credentials', async () => {
    const vonage = await startVonage({ publicKey: application.publicKey })
    cleanups.push(() => vonage.close())
    const body = JSON.stringify({ to: '380501234567', from: 'Tidings', channel: 'viber_service', message_type: 'text', text: 'Hi' })
    const post = (authorization: string) =>
      fetch(vonage.url, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body }).then(async (r) => ({ status: r.status, body: await r.text() }))
    const hs256 = await new SignJWT({ application_id: vonage.applicationId }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('15m').sign(createSecretKey(Buffer.alloc(32, 1)))
    const refused = await post(`Bearer ${hs256}`)
    assert.equal(refused.status, 401)
    assert.match(refused.body, /ERR_JOSE_ALG_NOT_ALLOWED/)
    assert.equal((await post(`Basic ${Buffer.from(vonage.credentials).toString('base64')}`)).status, 202)
    const rs256 = await new SignJWT({ application_id: vonage.applicationId }).setProtectedHeader({ alg: 'RS256' }).setIssuedAt().setExpirationTime('15m').sign(privateKey)
    assert.equal((await post(`Bearer ${rs256}`)).status, 202)
  })
})
