// One webhook request to a customer's URL. The URL is the customer's, so unless private targets are allowed
// (development, tests) it must not reach our own network: the address is checked where the socket is opened
// (the agent's `lookup`), so what was checked is what is connected to and DNS rebinding has no window.
// node:http is used directly: it does everything needed here (keep-alive pools, a per-agent `lookup`) and never
// follows redirects; undici would add a dependency and route the address check through a custom connector.
import dns from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import ipaddr from 'ipaddr.js'
import { failureText } from './failure-text.js'

export type WebhookPostResult = (Delivered | Failed) & { latencyMs: number }
type Delivered = { ok: true; status: number }
type Failed = { ok: false; status?: number; error: string; retryable: boolean }

export interface WebhookPostOptions {
  timeoutMs: number
  /** Lets the URL reach loopback, private and other non-public addresses. */
  allowPrivate: boolean
}

/** The most of a response body read before the connection is dropped instead of drained for reuse. */
const MAX_RESPONSE_BYTES = 64 * 1024

/** Marks errors for which a retry cannot help: the URL itself is unusable. */
const FORBIDDEN = 'ERR_WEBHOOK_FORBIDDEN_ADDRESS'

/**
 * POSTs `body` to `url` and says whether the receiver took it. Only a 2xx answer is a delivery. Every other
 * answer, 4xx included, is retryable: a receiver behind a deploy, a proxy or an expired auth rule answers
 * 404/401/403 for a while and then works again, and the caller's retry schedule bounds the attempts. A 3xx
 * is not followed (the target would be a URL nobody checked) and is a retryable failure too. Only a URL that
 * can never be delivered to (not http(s), or a forbidden address) fails without retry. The timeout covers
 * connecting, sending and the response headers; a body still arriving then is cut off and the status stands.
 */
export function postWebhook(url: string, body: string, headers: Record<string, string>, options: WebhookPostOptions): Promise<WebhookPostResult> {
  const started = performance.now()
  const elapsed = () => performance.now() - started
  let target: URL
  try {
    target = new URL(url)
  } catch {
    return Promise.resolve({ ok: false, latencyMs: elapsed(), error: 'invalid URL', retryable: false })
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return Promise.resolve({ ok: false, latencyMs: elapsed(), error: `unsupported protocol ${target.protocol}`, retryable: false })
  }
  // Node connects to an IP literal without calling `lookup`, so the agent's check never sees it: check it here.
  // URL has already normalized the spellings (2130706433, 0x7f.1, 127.1 are all 127.0.0.1).
  const literal = target.hostname.replace(/^\[(.*)\]$/, '$1')
  if (!options.allowPrivate && net.isIP(literal) !== 0) {
    const refusal = forbiddenReason(literal)
    if (refusal) return Promise.resolve({ ok: false, latencyMs: elapsed(), error: refusal, retryable: false })
  }

  return new Promise((resolve) => {
    let settled = false
    let status: number | undefined
    const finish = (result: Delivered | Failed): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({ ...result, latencyMs: elapsed() })
    }
    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'POST',
      agent: agentFor(target.protocol, options.allowPrivate),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'tidings-webhooks',
        ...headers,
        'content-length': String(Buffer.byteLength(body)),
      },
    })
    const timer = setTimeout(() => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)), options.timeoutMs)
    request.on('error', (err: NodeJS.ErrnoException) => {
      if (status !== undefined) return finish(statusResult(status))
      finish({ ok: false, error: failureText(err, target), retryable: err.code !== FORBIDDEN })
    })
    request.on('response', (response) => {
      status = response.statusCode ?? 0
      let received = 0
      // Reading the body to its end lets the agent reuse the connection; a huge one is not worth the wait.
      response.on('data', (chunk: Buffer) => {
        received += chunk.length
        if (received > MAX_RESPONSE_BYTES) response.destroy()
      })
      response.on('end', () => finish(statusResult(status ?? 0)))
      // Destroyed early (size cap, timeout, connection lost mid-body): the receiver has answered all the same.
      response.on('close', () => finish(statusResult(status ?? 0)))
      response.on('error', () => finish(statusResult(status ?? 0)))
    })
    request.end(body)
  })
}

function statusResult(status: number): Delivered | Failed {
  if (status >= 200 && status < 300) return { ok: true, status }
  if (status >= 300 && status < 400) return { ok: false, status, error: 'redirects are not followed', retryable: true }
  return { ok: false, status, error: `HTTP ${status}`, retryable: true }
}

// One keep-alive pool per protocol and mode, shared by all calls. The modes never share one: a connection
// opened to a private address while allowed must not be reused by a request that is not allowed there.
const agents = new Map<string, http.Agent>()

function agentFor(protocol: string, allowPrivate: boolean): http.Agent {
  const key = `${protocol}${allowPrivate}`
  let agent = agents.get(key)
  if (!agent) {
    const agentOptions: http.AgentOptions = { keepAlive: true, ...(allowPrivate ? {} : { lookup: publicOnlyLookup }) }
    agent = protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions)
    agents.set(key, agent)
  }
  return agent
}

/** dns.lookup that fails when the name resolves to any address that is not public. */
const publicOnlyLookup: net.LookupFunction = (hostname, lookupOptions, callback) => {
  dns.lookup(hostname, lookupOptions, (err, address: string | dns.LookupAddress[], family?: number) => {
    if (err) return callback(err, address, family)
    // With autoSelectFamily (Node 20's default) net asks for all addresses and may try each of them.
    const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address)
    for (const candidate of addresses) {
      // The customer reads this in the delivery log: their host name, never the address (failure-text.ts says why).
      const refusal = forbiddenReason(candidate, hostname)
      if (refusal) return callback(Object.assign(new Error(refusal), { code: FORBIDDEN }), address, family)
    }
    callback(null, address, family)
  })
}

/**
 * Why a webhook may not connect to `address`, or undefined for a public unicast address. Anything ipaddr.js
 * puts in a special range is refused, which covers loopback, RFC 1918, link-local (cloud metadata), CGNAT,
 * ULA and also the IPv6 forms that embed an IPv4 address (NAT64, 6to4, Teredo) and could reach one of those.
 * `shownAs` names the target in the text: the host name when the address is what it resolved to.
 */
export function forbiddenReason(address: string, shownAs = address): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6
  try {
    // process() turns IPv4-mapped IPv6 (::ffff:127.0.0.1) into the IPv4 address it stands for.
    parsed = ipaddr.process(address)
  } catch {
    return `refused to connect to ${shownAs} (unparsable address)`
  }
  const range = parsed.range()
  return range === 'unicast' ? undefined : `refused to connect to ${shownAs} (${range} address)`
}
