import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import qs from 'qs'
import { Webhook } from 'standardwebhooks'
import { formBody } from '../../../src/delivery/webhooks/form-body.js'
import { forbiddenReason, postWebhook } from '../../../src/delivery/webhooks/http-post.js'
import { newWebhookSecret, signatureHeaders } from '../../../src/delivery/webhooks/signature.js'

interface Received {
  method: string | undefined
  url: string | undefined
  headers: http.IncomingHttpHeaders
  body: string
}

interface Receiver {
  port: number
  url: string
  connections: number
  requests: Received[]
}

const servers: http.Server[] = []
after(async () => {
  for (const server of servers) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

/** A webhook receiver on 127.0.0.1 that records every connection and request, then lets `answer` reply. */
async function receiver(answer: (res: http.ServerResponse, received: Received) => void): Promise<Receiver> {
  const state: Receiver = { port: 0, url: '', connections: 0, requests: [] }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const received = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
      state.requests.push(received)
      answer(res, received)
    })
  })
  server.on('connection', () => state.connections++)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.port = (server.address() as AddressInfo).port
  state.url = `http://127.0.0.1:${state.port}`
  return state
}

const local = { timeoutMs: 2000, allowPrivate: true }
const guarded = { timeoutMs: 2000, allowPrivate: false }
const ok = (res: http.ServerResponse) => res.end('ok')

describe('postWebhook', () => {
  it('delivers the form body and signature headers intact, and the receiver can parse and verify them', async () => {
    const target = await receiver(ok)
    const secret = newWebhookSecret()
    const events = [
      { event: 'open', email: 'a+b@example.com', info: { ua: 'Mozilla/5.0 (X11)', tags: ['x', 'y'] } },
      { event: 'unsubscribe', email: 'c@example.com' },
    ]
    const body = formBody(events)
    const headers = signatureHeaders(secret, 'msg_1', Math.floor(Date.now() / 1000), body)

    const result = await postWebhook(`${target.url}/hooks/email?site=1`, body, headers, local)

    assert.equal(result.ok, true)
    assert.equal(result.status, 200)
    assert.equal(typeof result.latencyMs, 'number')
    assert.equal(target.requests.length, 1)
    const [received] = target.requests
    assert.equal(received?.method, 'POST')
    assert.equal(received?.url, '/hooks/email?site=1')
    assert.equal(received?.headers['content-type'], 'application/x-www-form-urlencoded')
    assert.equal(received?.headers['content-length'], String(Buffer.byteLength(body)))
    assert.equal(received?.body, body)
    assert.deepEqual(qs.parse(received?.body ?? ''), {
      0: { event: 'open', email: 'a+b@example.com', info: { ua: 'Mozilla/5.0 (X11)', tags: ['x', 'y'] } },
      1: { event: 'unsubscribe', email: 'c@example.com' },
    })
    const receivedHeaders = Object.fromEntries(Object.keys(headers).map((name) => [name, String(received?.headers[name])]))
    assert.deepEqual(receivedHeaders, headers)
    new Webhook(secret).verify(received?.body ?? '', receivedHeaders, { jsonParse: false })
  })

  it('reuses one kept-alive connection for consecutive requests to the same receiver', async () => {
    const target = await receiver(ok)
    for (let i = 0; i < 3; i++) assert.equal((await postWebhook(target.url, 'a=1', {}, local)).ok, true)
    assert.equal(target.requests.length, 3)
    assert.equal(target.connections, 1)
  })

  it('refuses loopback and link-local targets in any spelling without connecting', async () => {
    const target = await receiver(ok)
    const urls = [
      `http://127.0.0.1:${target.port}/`,
      `http://localhost:${target.port}/`,
      `http://[::1]:${target.port}/`,
      `http://[::ffff:127.0.0.1]:${target.port}/`,
      `http://2130706433:${target.port}/`,
      `http://0x7f.1:${target.port}/`,
      `http://127.1:${target.port}/`,
      `http://0:${target.port}/`,
      'http://169.254.169.254/latest/meta-data/',
      `https://127.0.0.1:${target.port}/`,
      `https://localhost:${target.port}/`,
    ]
    for (const url of urls) {
      const result = await postWebhook(url, 'a=1', {}, guarded)
      assert.equal(result.ok, false, url)
      assert.ok(!result.ok && result.retryable === false, `${url} is not retried`)
      assert.match(!result.ok ? result.error : '', /refused to connect to .* \((loopback|unspecified|linkLocal) address\)/, url)
    }
    assert.equal(target.connections, 0)
  })

  it('does not let a connection pooled while private targets were allowed serve a guarded request', async () => {
    const target = await receiver(ok)
    const url = `http://localhost:${target.port}/`
    assert.equal((await postWebhook(url, 'a=1', {}, local)).ok, true)
    const result = await postWebhook(url, 'a=1', {}, guarded)
    assert.equal(result.ok, false)
    assert.match(!result.ok ? result.error : '', /^refused to connect to localhost \(loopback address\)$/)
    assert.equal(target.requests.length, 1)
  })

  it('reports a 500 as a retryable failure with its status', async () => {
    const target = await receiver((res) => res.writeHead(500).end('down'))
    const result = await postWebhook(target.url, 'a=1', {}, local)
    assert.deepEqual({ ...result, latencyMs: 0 }, { ok: false, status: 500, error: 'HTTP 500', retryable: true, latencyMs: 0 })
  })

  it('does not follow a redirect', async () => {
    const elsewhere = await receiver(ok)
    const target = await receiver((res) => res.writeHead(302, { location: `${elsewhere.url}/moved` }).end())
    const result = await postWebhook(target.url, 'a=1', {}, local)
    assert.deepEqual({ ...result, latencyMs: 0 }, { ok: false, status: 302, error: 'redirects are not followed', retryable: true, latencyMs: 0 })
    assert.equal(target.requests.length, 1)
    assert.equal(elsewhere.connections, 0)
  })

  it('takes a 2xx with a large answer without reading all of it', { timeout: 5000 }, async () => {
    const target = await receiver((res) => res.end(Buffer.alloc(1024 * 1024, 'x')))
    const result = await postWebhook(target.url, 'a=1', {}, local)
    assert.equal(result.ok, true)
    assert.equal(result.status, 200)
  })

  it('gives up on a receiver that never answers, as a retryable failure', { timeout: 5000 }, async () => {
    const target = await receiver(() => {})
    const result = await postWebhook(target.url, 'a=1', {}, { timeoutMs: 300, allowPrivate: true })
    assert.equal(result.ok, false)
    assert.ok(!result.ok && result.retryable, 'retryable')
    assert.match(!result.ok ? result.error : '', /timed out after 300 ms/)
    assert.equal(result.status, undefined)
    assert.equal(target.requests.length, 1)
  })

  it('fails without retry for URLs that can never be delivered to', async () => {
    for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'not a url']) {
      const result = await postWebhook(url, 'a=1', {}, local)
      assert.ok(!result.ok && !result.retryable, url)
    }
  })
})

describe('forbiddenReason', () => {
  it('refuses every non-public range, IPv4-mapped and IPv4-embedding IPv6 forms included', () => {
    const refused = [
      '10.1.2.3', '172.16.0.1', '192.168.1.1', '100.64.0.1', '169.254.169.254', '0.0.0.0', '224.0.0.1',
      '255.255.255.255', '192.0.2.1', '::', '::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'ff02::1',
      '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::7f00:1', '2002:7f00:1::1', 'not-an-ip',
    ]
    for (const address of refused) assert.ok(forbiddenReason(address), address)
  })

  it('allows public addresses, also when written as IPv4-mapped IPv6', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(forbiddenReason(address), undefined, address)
  })
})
