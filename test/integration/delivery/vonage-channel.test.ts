// The Vonage Viber channel against a real Messages API stand-in on loopback (test/helpers/vonage.ts): what is
// sent, how each answer is read (accepted, refused, retried later, timed out), the bound on requests in flight,
// and the stand-in's signed status callbacks, verified by vonage-callback.ts as the callback route will.
import { afterEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { pino } from 'pino'
import type { OutboundViber, ViberReport, ViberSendResult } from '../../../src/delivery/viber/channel.js'
import { vonageChannel, type VonageChannelOptions } from '../../../src/delivery/viber/vonage.js'
import { vonageRequestOf } from '../../../src/delivery/viber/vonage-request.js'
import { SeenTokens, verifyVonageCallback } from '../../../src/delivery/viber/vonage-callback.js'
import { startVonage, type VonageStandIn } from '../../helpers/vonage.js'

const log = pino({ level: 'silent' })
const WEBHOOK = 'http://127.0.0.1:9/viber/callbacks/vonage'

let cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  cleanups = []
})

async function setup(options: Partial<VonageChannelOptions> = {}) {
  const vonage = await startVonage()
  const channel = vonageChannel({ url: vonage.url, credentials: vonage.credentials, webhookUrl: WEBHOOK, concurrency: 4, timeoutMs: 5000, log, ...options })
  cleanups.push(() => vonage.close(), () => channel.close())
  return { vonage, channel }
}

const viber = (messageId: number, fields: Partial<OutboundViber> = {}): OutboundViber => ({
  messageId,
  to: `38050${String(messageId).padStart(7, '0')}`,
  from: 'Tidings',
  category: 'promotion',
  text: 'Sale today',
  imageUrl: null,
  button: null,
  ttlSeconds: 3600,
  ...fields,
})
const failure = (result: ViberSendResult | undefined) => (result && !result.ok ? result : assert.fail(`not a failure: ${JSON.stringify(result)}`))

/** A callback receiver that verifies each callback as the callback route will; `refuseFirst` answers 500 first. */
async function startReceiver(vonage: VonageStandIn, refuseFirst = 0) {
  const reports: ViberReport[] = []
  const refusals: string[] = []
  const seen = new SeenTokens()
  let toRefuse = refuseFirst
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', async () => {
      const result = await verifyVonageCallback(Buffer.concat(chunks), request.headers.authorization, { signatureSecret: vonage.signatureSecret, apiKey: vonage.apiKey, seen })
      if (!result.ok) refusals.push(result.reason)
      else if (toRefuse > 0) {
        toRefuse--
        result.release()
        response.statusCode = 500
        return response.end()
      } else reports.push(result.report)
      response.statusCode = result.ok ? 204 : 401
      response.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/viber/callbacks/vonage`, reports, refusals }
}

describe('Vonage Viber channel', () => {
  it('sends each of the four message shapes as Vonage takes them and gets its message_uuid', async () => {
    const { vonage, channel } = await setup()
    const button = { text: 'Open', url: 'https://tidings.example/v/c/token' }
    const batch = [
      viber(1),
      viber(2, { imageUrl: 'https://cdn.example/p.jpg', button }),
      viber(3, { button, category: 'transaction', ttlSeconds: 60 }),
      viber(4, { text: null, imageUrl: 'https://cdn.example/p.jpg' }),
    ]
    const results = await channel.send(batch)
    assert.deepEqual(vonage.requests.map((r) => r.status), [202, 202, 202, 202], JSON.stringify(results))
    const byRef = new Map(vonage.requests.map((r) => [r.body!.client_ref, r]))
    batch.forEach((message, i) => {
      const request = byRef.get(String(message.messageId))!
      assert.deepEqual(request.body, vonageRequestOf(message, WEBHOOK))
      assert.deepEqual(results[i], { ok: true, providerId: request.messageUuid })
      assert.equal(request.headers.authorization, `Basic ${Buffer.from(vonage.credentials).toString('base64')}`)
      assert.equal(request.headers['content-type'], 'application/json')
    })
  })

  it('gives up on a request Vonage finds malformed, naming the parameter', async () => {
    const { vonage, channel } = await setup()
    const [result] = await channel.send([viber(1, { button: { text: 'A button text far longer than thirty characters', url: 'https://tidings.example/x' } })])
    assert.deepEqual(failure(result), { ok: false, retryable: false, reason: 'HTTP 400: Invalid params: The value of one or more parameters is invalid. (viber_service.action.text: Must be 1 to 30 characters)' })
    assert.equal(vonage.accepted, 0)
  })

  it('retries later on refused credentials, without the key or the secret in the reason', async () => {
    const vonage = await startVonage()
    const channel = vonageChannel({ url: vonage.url, credentials: `${vonage.apiKey}:wrong-secret`, webhookUrl: WEBHOOK, concurrency: 2, timeoutMs: 5000, log })
    cleanups.push(() => vonage.close(), () => channel.close())
    const result = failure((await channel.send([viber(1)]))[0])
    assert.equal(result.retryable, true)
    assert.match(result.reason, /^HTTP 401: Unauthorized: Invalid credentials supplied/)
    assert.ok(!result.reason.includes(vonage.apiKey) && !result.reason.includes('wrong-secret'), result.reason)
  })

  it('retries later during an outage (500, 503, 429) and reads Retry-After', async () => {
    const { vonage, channel } = await setup({ concurrency: 1 })
    vonage.failNext(1, 500)
    vonage.failNext(1, 503, 3)
    vonage.failNext(1, 429, 1)
    const results = await channel.send([viber(1), viber(2), viber(3), viber(4)])
    assert.deepEqual(results.slice(0, 3).map((r) => failure(r)), [
      { ok: false, retryable: true, reason: 'HTTP 500: Service Unavailable: Please wait, then retry your request' },
      { ok: false, retryable: true, reason: 'HTTP 503: Service Unavailable: Please wait, then retry your request', retryAfterMs: 3000 },
      { ok: false, retryable: true, reason: 'HTTP 429: Too Many Requests: Please wait, then retry your request', retryAfterMs: 1000 },
    ])
    assert.ok(results[3]!.ok, 'sent once the outage is over')
  })

  it('retries later when the answer does not come in time, or the provider cannot be reached', async () => {
    const { vonage, channel } = await setup({ timeoutMs: 100 })
    vonage.respondDelayMs = 1000
    assert.deepEqual(failure((await channel.send([viber(1)]))[0]), { ok: false, retryable: true, reason: 'no answer within 0.1 s' })
    await vonage.close()
    assert.deepEqual(failure((await channel.send([viber(2)]))[0]), { ok: false, retryable: true, reason: 'connection failed: ECONNREFUSED' })
    await channel.close()
    assert.deepEqual(failure((await channel.send([viber(3)]))[0]), { ok: false, retryable: true, reason: 'the Viber channel is closed' })
  })

  it('never has more requests in flight than its concurrency, across concurrent sends', async () => {
    const { vonage, channel } = await setup({ concurrency: 3 })
    vonage.respondDelayMs = 20
    const batches = await Promise.all([channel.send(Array.from({ length: 10 }, (_, i) => viber(i + 1))), channel.send(Array.from({ length: 10 }, (_, i) => viber(i + 11)))])
    assert.ok(batches.flat().every((r) => r.ok))
    assert.equal(vonage.accepted, 20)
    assert.ok(vonage.maxInFlight <= 3, `max in flight: ${vonage.maxInFlight}`)
  })
})

describe('Vonage stand-in callbacks', () => {
  it('reports each number as scripted, signed so that the callback verification takes them', async () => {
    const vonage = await startVonage()
    const receiver = await startReceiver(vonage)
    const channel = vonageChannel({ url: vonage.url, credentials: vonage.credentials, webhookUrl: receiver.url, concurrency: 4, timeoutMs: 5000, log })
    cleanups.push(() => vonage.close(), () => channel.close())
    const batch = [viber(1), viber(2), viber(3), viber(4), viber(5)]
    vonage.outcomes.set(batch[1]!.to, ['submitted', 'delivered', 'read'])
    vonage.outcomes.set(batch[2]!.to, ['undeliverable'])
    vonage.outcomes.set(batch[3]!.to, ['rejected'])
    vonage.outcomes.set(batch[4]!.to, [])
    const results = await channel.send(batch)
    await vonage.waitForCallbacks(6)
    assert.deepEqual(receiver.refusals, [])
    const states = (messageId: number) => receiver.reports.filter((r) => r.messageId === messageId).map((r) => r.state)
    assert.deepEqual([1, 2, 3, 4, 5].map(states), [['delivered'], ['submitted', 'delivered', 'read'], ['undeliverable'], ['rejected'], []])
    const first = receiver.reports.find((r) => r.messageId === 1)!
    assert.equal(first.providerId, results[0]!.ok && results[0]!.providerId)
    assert.match(receiver.reports.find((r) => r.messageId === 3)!.error!, /^1300: /)
  })

  it('sends a refused callback again, and says which were refused', async () => {
    const vonage = await startVonage()
    vonage.callbackRetryMs = 10
    const receiver = await startReceiver(vonage, 1)
    const channel = vonageChannel({ url: vonage.url, credentials: vonage.credentials, webhookUrl: receiver.url, concurrency: 4, timeoutMs: 5000, log })
    cleanups.push(() => vonage.close(), () => channel.close())
    await channel.send([viber(1)])
    await vonage.waitForCallbacks(1)
    assert.deepEqual(receiver.reports.map((r) => [r.messageId, r.state]), [[1, 'delivered']])
    assert.deepEqual(vonage.refusedCallbacks().map((c) => c.answers), [[500, 204]])
  })

  it('signs arbitrary content for forged-callback tests: a forged one is refused by the verification', async () => {
    const vonage = await startVonage()
    cleanups.push(() => vonage.close())
    const content = { message_uuid: 'u', client_ref: '5', status: 'read', channel: 'viber_service', timestamp: new Date().toISOString() }
    const options = { signatureSecret: vonage.signatureSecret, apiKey: vonage.apiKey, seen: new SeenTokens() }
    const genuine = vonage.signCallback(content)
    assert.ok((await verifyVonageCallback(Buffer.from(genuine.body), genuine.authorization, options)).ok)
    const forged = vonage.signCallback(content, { signatureSecret: 'guessed-secret' })
    assert.equal((await verifyVonageCallback(Buffer.from(forged.body), forged.authorization, options)).ok, false)
  })
})
