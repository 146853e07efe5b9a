// The Vonage Messages API as a Viber channel: one `POST {TIDINGS_VIBER_URL}` per recipient (the API takes one `to`
// per request), over a keep-alive pool with at most `concurrency` requests in flight. Reports come back as signed
// HTTP callbacks to `webhookUrl` (vonage-callback.ts), not through onReport.
// node:http rather than fetch: against the stand-in (test/helpers/vonage.ts) on loopback, Node 20's fetch did a
// quarter of the requests a second (1,600-2,000 against 6,000-8,800, 20-50 in flight, 2 cores), and undici's own
// Pool is only a dev dependency here.
import http from 'node:http'
import https from 'node:https'
import type { Logger } from 'pino'
import { ConcurrencyGate } from '../../lib/concurrency-gate.js'
import type { OutboundViber, ViberChannel, ViberSendResult } from './channel.js'
import { applicationAuth, basicAuth, type VonageApplication } from './vonage-auth.js'
import { resultOfAnswer, vonageRequestOf } from './vonage-request.js'

export interface VonageChannelOptions {
  /** The messages endpoint, e.g. https://api.nexmo.com/v1/messages */
  url: string
  /** `API_KEY:API_SECRET` (HTTP Basic), when there is no `application`. */
  credentials?: string
  /** A Vonage application: requests carry its JWT (vonage-auth.ts), whatever `credentials` says. */
  application?: VonageApplication
  /** Where Vonage sends this message's status callbacks: `{TIDINGS_PUBLIC_URL}/viber/callbacks/vonage`. */
  webhookUrl: string
  /** Requests in flight at once. */
  concurrency: number
  /** A request not answered (body included) within this is abandoned and retryable. */
  timeoutMs: number
  log: Logger
  now?: () => number
}

/** The most of an answer read: Vonage's answers are a UUID or an RFC 7807 problem, well under 1 KiB. */
const MAX_ANSWER_BYTES = 64 * 1024

export function vonageChannel(options: VonageChannelOptions): ViberChannel {
  const target = new URL(options.url)
  const transport = target.protocol === 'https:' ? https : http
  const agent = new transport.Agent({ keepAlive: true, maxSockets: options.concurrency, maxFreeSockets: options.concurrency })
  const gate = new ConcurrencyGate({ limit: options.concurrency, queue: Number.POSITIVE_INFINITY })
  const now = options.now ?? Date.now
  const auth = options.application ? applicationAuth(options.application, now) : options.credentials ? basicAuth(options.credentials) : undefined
  if (!auth) throw new Error('the Vonage channel needs credentials or an application')
  // What a reason must never show: the key, the secret, the URL's own credentials (and each request's header).
  const secrets = [...auth.secrets, target.username, target.password]
  const headers = { 'content-type': 'application/json', accept: 'application/json' }
  const log = options.log
  let closed = false

  const post = (body: string, authorization: string): Promise<ViberSendResult> =>
    new Promise((resolve) => {
      let settled = false
      const finish = (result: ViberSendResult) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve(result)
      }
      const request = transport.request(target, { method: 'POST', agent, headers: { ...headers, authorization, 'content-length': Buffer.byteLength(body) } })
      const timer = setTimeout(() => request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)), options.timeoutMs)
      request.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, retryable: true, reason: transportFailure(err) }))
      request.on('response', (response) => {
        const chunks: Buffer[] = []
        let received = 0
        const answered = () => {
          const retryAfter = response.headers['retry-after']
          // The header, and each part of its token (a JWT's signature alone is not for showing either).
          const shown = [...secrets, authorization, ...authorization.slice(authorization.indexOf(' ') + 1).split('.')]
          finish(resultOfAnswer({ status: response.statusCode ?? 0, retryAfter, body: Buffer.concat(chunks) }, shown, now()))
        }
        response.on('data', (chunk: Buffer) => {
          received += chunk.length
          if (received <= MAX_ANSWER_BYTES) chunks.push(chunk)
          else response.destroy()
        })
        response.on('end', answered)
        response.on('close', () => {
          if (settled) return
          // Cut off at the size cap: the status line says enough. Cut off otherwise (connection lost mid-body): retried.
          if (received > MAX_ANSWER_BYTES) answered()
          else finish({ ok: false, retryable: true, reason: 'the answer was cut off' })
        })
      })
      request.end(body)
    })

  const authorizationOrUndefined = async (): Promise<string | undefined> => {
    try {
      return await auth.header()
    } catch (err) {
      // Not expected with a key checked at start; the error names no key material (jose's and OpenSSL's do not).
      log.error({ err }, 'Vonage application token not signed')
      return undefined
    }
  }

  const sendOne = async (message: OutboundViber): Promise<ViberSendResult> => {
    const request = vonageRequestOf(message, options.webhookUrl)
    if (request instanceof Error) return { ok: false, retryable: false, reason: request.message }
    const body = JSON.stringify(request)
    const outcome = await gate.run(async () => {
      if (closed) return closedResult()
      const authorization = await authorizationOrUndefined()
      return authorization === undefined ? unsignedResult() : post(body, authorization)
    })
    const result = outcome.admitted ? outcome.value : closedResult()
    if (!result.ok) log.debug({ messageId: message.messageId, reason: result.reason, retryable: result.retryable }, 'Viber message not accepted')
    return result
  }

  return {
    name: 'vonage',
    send: (batch) => Promise.all(batch.map(sendOne)),
    // Vonage reports over HTTP callbacks (api route → vonage-callback.ts); nothing comes through here.
    onReport: () => {},
    close: async () => {
      closed = true
      agent.destroy()
    },
  }
}

function unsignedResult(): ViberSendResult {
  return { ok: false, retryable: true, reason: 'the Vonage application token could not be signed' }
}

function closedResult(): ViberSendResult {
  return { ok: false, retryable: true, reason: 'the Viber channel is closed' }
}

/** A failure before any answer, by its code (ECONNREFUSED, ECONNRESET …): never the URL, which may carry secrets. */
function transportFailure(err: NodeJS.ErrnoException): string {
  const cause = (err instanceof AggregateError && err.errors[0] instanceof Error ? err.errors[0] : err) as NodeJS.ErrnoException
  if (cause.code) return `connection failed: ${cause.code}`
  return err.message.startsWith('no answer within') ? err.message : 'connection failed'
}
