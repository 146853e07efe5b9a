// A real Vonage Messages API stand-in on loopback (node:http) for tests and benchmarks. It takes
// `POST /v1/messages` as Vonage documents it for the `viber_service` channel: HTTP Basic credentials, or, when given
// an application's public key, a Bearer JWT of that application (RS256, its `application_id`, unexpired) — 401 with
// an RFC 7807 body otherwise — the request's shape checked (400 with a 7807 body and `invalid_parameters`), 202
// `{message_uuid}`. Then it sends the status callbacks scripted for the recipient to the request's webhook_url,
// one after the other, each signed as Vonage signs them (an HS256 JWT in `Authorization: Bearer` with iat, jti,
// iss, api_key and payload_hash), and sends a callback again while it is refused (non-2xx or no connection).
// Its behaviour can be changed at any time: outcomes per number, an outage (failNext), slow answers.
import { createHash, createHmac, createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { errors, jwtVerify } from 'jose'

export type VonageStatus = 'submitted' | 'delivered' | 'read' | 'rejected' | 'undeliverable'

export interface VonageRequest {
  headers: http.IncomingHttpHeaders
  /** The JSON body as parsed (undefined when it was not JSON). */
  body: Record<string, unknown> | undefined
  /** The status answered. */
  status: number
  /** The message_uuid given (202 only). */
  messageUuid?: string
}

export interface VonageCallback {
  url: string
  body: Record<string, unknown>
  /** The status of each attempt, in order; 0: no HTTP answer (connection refused or reset). */
  answers: number[]
}

export interface VonageStandInOptions {
  apiKey?: string
  apiSecret?: string
  signatureSecret?: string
  /** An application's public key (KeyObject or PEM): Bearer JWTs it verifies are taken too (else only Basic). */
  publicKey?: KeyObject | string
  /** The `application_id` those JWTs must carry (default APPLICATION_ID). */
  applicationId?: string
  /** Keep every request and callback (default true); a benchmark only counts. */
  record?: boolean
  /** A fixed port to listen on (default 0: a free one). */
  port?: number
  /** Time every callback answered 2xx (callbackTimes), even when not recording (default false). */
  timeCallbacks?: boolean
}

/** One callback answered 2xx: when its request went out on a socket, and how long until its answer's last byte. */
export interface CallbackTime {
  /** Milliseconds since the epoch, to the microsecond (performance.timeOrigin + performance.now()). */
  sentAt: number
  ms: number
}

export interface VonageStandIn {
  port: number
  /** http://127.0.0.1:port/v1/messages */
  url: string
  apiKey: string
  apiSecret: string
  /** `apiKey:apiSecret`, as TIDINGS_VIBER_TOKEN takes it. */
  credentials: string
  /** The application whose JWTs are taken, when a public key was given. */
  applicationId: string
  signatureSecret: string
  /** Every request, in the order received (when recording). */
  requests: VonageRequest[]
  /** Requests received, counted even when not recorded. */
  requestCount: number
  /** Requests answered 202. */
  accepted: number
  /** When the first and the latest 202 were written (ms since the epoch, as CallbackTime.sentAt); set undefined to start again. */
  firstAcceptedAt: number | undefined
  lastAcceptedAt: number | undefined
  /** Requests received and not answered yet, and the most there were at one time. */
  inFlight: number
  maxInFlight: number
  /** The statuses reported for a number, in order ([] : none); the default when it has no entry. */
  outcomes: Map<string, VonageStatus[]>
  defaultOutcome: VonageStatus[]
  /** Milliseconds before each answer. */
  respondDelayMs: number
  /** Milliseconds before each callback (after the answer, or after the previous status was taken). */
  callbackDelayMs: number
  /** Milliseconds before a refused callback is sent again, and how many attempts at most (default 100 ms, 50). */
  callbackRetryMs: number
  callbackAttempts: number
  /** Callbacks sent (when recording), each with the answers it got. */
  callbacks: VonageCallback[]
  /** Callbacks answered 2xx, and attempts answered otherwise; counted even when not recorded. */
  callbacksAcknowledged: number
  callbackAttemptsRefused: number
  /** The round trip of every callback answered 2xx, in order of answer (when recording or timeCallbacks). */
  callbackTimes: CallbackTime[]
  /** Recorded callbacks that got at least one answer other than 2xx. */
  refusedCallbacks(): VonageCallback[]
  /** The next `count` requests are answered `status` (5xx, 429 …), with Retry-After when given: an outage. */
  failNext(count: number, status: number, retryAfterSeconds?: number): void
  /** Resolves once `count` callbacks in all were acknowledged. */
  waitForCallbacks(count: number, timeoutMs?: number): Promise<void>
  /** A callback of `content` signed with this stand-in's secret and key; `overrides` forge it. */
  signCallback(content: Record<string, unknown> | string, overrides?: Partial<SignOptions>): SignedCallback
  close(): Promise<void>
}

export interface SignOptions {
  signatureSecret: string
  apiKey: string
  /** Seconds since the epoch (default now). */
  iat: number
  jti: string
  iss: string
  /** The hash claimed (default: of the body, as Vonage computes it). */
  payloadHash: string
  /** The header's alg (default HS256); `none` leaves the signature empty. */
  alg: string
  /** Claims added or replaced. */
  claims: Record<string, unknown>
}

export interface SignedCallback {
  body: string
  /** `Bearer <jwt>` */
  authorization: string
}

const MAX_REQUEST_BYTES = 1024 * 1024
/** The stand-in's application id unless told another. */
export const APPLICATION_ID = 'aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab'
/** Vonage takes a token without `exp` for 15 minutes, and none more than 24 hours after its `iat` (api.support.vonage.com, article 360000958407). */
const DEFAULT_TOKEN_SECONDS = 15 * 60
const MAX_TOKEN_SECONDS = 24 * 60 * 60
const TOP_LEVEL = new Set(['to', 'from', 'channel', 'message_type', 'text', 'image', 'viber_service', 'client_ref', 'webhook_url', 'webhook_version'])
const ERROR_OF: Partial<Record<VonageStatus, { title: number; detail: string }>> = {
  rejected: { title: 1360, detail: 'TTL was activated, no callback was received' },
  undeliverable: { title: 1300, detail: 'Not part of the provider network' },
}

/** A JWT as Vonage signs a Messages callback (HS256 unless `alg` forges it), over `content` as the body. */
export function signVonageCallback(content: Record<string, unknown> | string, options: Partial<SignOptions> & Pick<SignOptions, 'signatureSecret' | 'apiKey'>): SignedCallback {
  const body = typeof content === 'string' ? content : JSON.stringify(content)
  const alg = options.alg ?? 'HS256'
  const claims = {
    iat: options.iat ?? Math.floor(Date.now() / 1000),
    jti: options.jti ?? randomUUID(),
    iss: options.iss ?? 'Vonage',
    payload_hash: options.payloadHash ?? createHash('sha256').update(body).digest('hex'),
    api_key: options.apiKey,
    ...options.claims,
  }
  const signingInput = `${base64url(JSON.stringify({ alg, typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`
  const signature = alg === 'none' ? '' : createHmac('sha256', options.signatureSecret).update(signingInput).digest('base64url')
  return { body, authorization: `Bearer ${signingInput}.${signature}` }
}

/** A fresh application key pair, as the Vonage dashboard makes one: RSA 2048, the private key PKCS#8 PEM. */
export function applicationKeys(): { privateKeyPem: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  return { privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey }
}

/** Why Vonage would refuse this Bearer token of `applicationId` (undefined: it would take it). */
async function bearerProblem(token: string, publicKey: KeyObject, applicationId: string): Promise<string | undefined> {
  let claims: Record<string, unknown>
  try {
    claims = (await jwtVerify(token, publicKey, { algorithms: ['RS256'] })).payload
  } catch (err) {
    return err instanceof errors.JOSEError ? err.code : 'unreadable token'
  }
  if (claims.application_id !== applicationId) return 'wrong application_id'
  if (typeof claims.iat !== 'number') return 'no iat'
  const now = Date.now() / 1000
  if (claims.exp === undefined && now > claims.iat + DEFAULT_TOKEN_SECONDS) return 'ERR_JWT_EXPIRED'
  if (now > claims.iat + MAX_TOKEN_SECONDS) return 'token older than 24 hours'
  return undefined
}

export async function startVonage(options: VonageStandInOptions = {}): Promise<VonageStandIn> {
  const record = options.record ?? true
  const timeCallbacks = record || options.timeCallbacks === true
  const apiKey = options.apiKey ?? 'vonage-key'
  const apiSecret = options.apiSecret ?? 'vonage-api-secret'
  const expectedAuthorization = `Basic ${Buffer.from(`${apiKey}:${apiSecret}`).toString('base64')}`
  const applicationId = options.applicationId ?? APPLICATION_ID
  const publicKey = typeof options.publicKey === 'string' ? createPublicKey(options.publicKey) : options.publicKey
  const failures: { status: number; retryAfterSeconds?: number }[] = []
  const timers = new Set<NodeJS.Timeout>()
  const waiters = new Set<() => void>()
  const callbackAgent = new http.Agent({ keepAlive: true, maxSockets: 64 })
  let closed = false

  const later = (ms: number, run: () => void) => {
    if (closed) return
    const timer = setTimeout(() => {
      timers.delete(timer)
      run()
    }, ms)
    timers.add(timer)
  }

  const vonage: VonageStandIn = {
    port: 0,
    url: '',
    apiKey,
    apiSecret,
    credentials: `${apiKey}:${apiSecret}`,
    applicationId,
    signatureSecret: options.signatureSecret ?? 'vonage-signature-secret-0123456789abcdef',
    requests: [],
    requestCount: 0,
    accepted: 0,
    firstAcceptedAt: undefined,
    lastAcceptedAt: undefined,
    inFlight: 0,
    maxInFlight: 0,
    outcomes: new Map(),
    defaultOutcome: ['delivered'],
    respondDelayMs: 0,
    callbackDelayMs: 0,
    callbackRetryMs: 100,
    callbackAttempts: 50,
    callbacks: [],
    callbacksAcknowledged: 0,
    callbackAttemptsRefused: 0,
    callbackTimes: [],
    refusedCallbacks: () => vonage.callbacks.filter((c) => c.answers.some((status) => status < 200 || status >= 300)),
    failNext: (count, status, retryAfterSeconds) => {
      for (let i = 0; i < count; i++) failures.push({ status, retryAfterSeconds })
    },
    waitForCallbacks: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        if (vonage.callbacksAcknowledged >= count) return resolve()
        const check = () => {
          if (vonage.callbacksAcknowledged < count) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`${vonage.callbacksAcknowledged} of ${count} callbacks acknowledged after ${timeoutMs} ms`))
        }, timeoutMs)
        waiters.add(check)
      }),
    signCallback: (content, overrides = {}) => signVonageCallback(content, { signatureSecret: vonage.signatureSecret, apiKey, ...overrides }),
    close: async () => {
      closed = true
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      callbackAgent.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }

  /** POSTs one callback until it is taken or the attempts run out; resolves either way. */
  const deliverCallback = (url: string, content: Record<string, unknown>): Promise<void> =>
    new Promise((resolve) => {
      const recorded: VonageCallback | undefined = record ? { url, body: content, answers: [] } : undefined
      if (recorded) vonage.callbacks.push(recorded)
      const attempt = (left: number) => {
        if (closed) return resolve()
        const { body, authorization } = vonage.signCallback(content)
        let sentAt = 0
        const answered = (status: number) => {
          recorded?.answers.push(status)
          if (status >= 200 && status < 300) {
            if (timeCallbacks) vonage.callbackTimes.push({ sentAt, ms: epochMs() - sentAt })
            vonage.callbacksAcknowledged++
            for (const waiter of [...waiters]) waiter()
            return resolve()
          }
          vonage.callbackAttemptsRefused++
          if (left <= 1) return resolve()
          later(vonage.callbackRetryMs, () => attempt(left - 1))
          if (closed) resolve()
        }
        const request = http.request(url, { method: 'POST', agent: callbackAgent, headers: { 'content-type': 'application/json', authorization, 'user-agent': 'Vonage' } })
        // From the socket, not from here: a wait for one of the agent's 64 sockets is the stand-in's, not the receiver's.
        request.on('socket', () => (sentAt = epochMs()))
        request.on('error', () => answered(0))
        request.on('response', (response) => {
          response.resume()
          response.on('end', () => answered(response.statusCode ?? 0))
        })
        request.end(body)
      }
      attempt(vonage.callbackAttempts)
    })

  const reportStatuses = async (message: Record<string, unknown>, messageUuid: string) => {
    const url = message.webhook_url
    if (typeof url !== 'string') return
    const to = String(message.to)
    for (const status of vonage.outcomes.get(to) ?? vonage.defaultOutcome) {
      await new Promise<void>((resolve) => (vonage.callbackDelayMs > 0 ? later(vonage.callbackDelayMs, resolve) : setImmediate(resolve)))
      if (closed) return
      const content: Record<string, unknown> = { message_uuid: messageUuid, to, from: message.from, timestamp: new Date().toISOString(), status, channel: 'viber_service' }
      if (message.client_ref !== undefined) content.client_ref = message.client_ref
      if (status === 'delivered') content.usage = { currency: 'EUR', price: '0.0085' }
      const error = ERROR_OF[status]
      if (error) content.error = { type: `https://developer.vonage.com/api-errors/messages#${error.title}`, ...error, instance: randomUUID() }
      await deliverCallback(url, content)
    }
  }

  const answer = (response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const send = () => {
      vonage.inFlight--
      const json = JSON.stringify(body)
      const type = status >= 400 ? 'application/problem+json' : 'application/json'
      response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(json), ...headers })
      response.end(json)
      if (status === 202) {
        vonage.lastAcceptedAt = epochMs()
        vonage.firstAcceptedAt ??= vonage.lastAcceptedAt
      }
    }
    if (vonage.respondDelayMs > 0) later(vonage.respondDelayMs, send)
    else send()
  }

  const onRequest = async (request: http.IncomingMessage, response: http.ServerResponse, raw: Buffer) => {
    vonage.requestCount++
    vonage.inFlight++
    vonage.maxInFlight = Math.max(vonage.maxInFlight, vonage.inFlight)
    const parsed = parseJson(raw)
    const keep = (status: number, messageUuid?: string) => {
      if (record) vonage.requests.push({ headers: request.headers, body: parsed, status, ...(messageUuid ? { messageUuid } : {}) })
    }
    const refuse = (status: number, title: string, detail: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
      keep(status)
      answer(response, status, { type: `https://developer.vonage.com/api-errors#${status}`, title, detail, instance: randomUUID(), ...extra }, headers)
    }
    if (request.method !== 'POST' || request.url !== '/v1/messages') return refuse(404, 'Not Found', `${request.method} ${request.url} is not a resource`)
    const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1]
    if (bearer !== undefined && publicKey !== undefined) {
      const problem = await bearerProblem(bearer, publicKey, applicationId)
      if (problem) return refuse(401, 'Unauthorized', `You did not provide correct credentials (${problem}).`)
    } else if (request.headers.authorization !== expectedAuthorization) {
      // Like many APIs, it names the key it was given; the adapter must not pass that on (it is ours).
      const given = basicUser(request.headers.authorization)
      return refuse(401, 'Unauthorized', `Invalid credentials supplied${given ? ` for api_key ${given}` : ''}.`)
    }
    const failure = failures.shift()
    if (failure) {
      const headers: Record<string, string> = failure.retryAfterSeconds === undefined ? {} : { 'retry-after': String(failure.retryAfterSeconds) }
      return refuse(failure.status, failure.status === 429 ? 'Too Many Requests' : 'Service Unavailable', 'Please wait, then retry your request', {}, headers)
    }
    if (!/^application\/json\b/.test(request.headers['content-type'] ?? '')) return refuse(415, 'Unsupported Media Type', 'Content-Type must be application/json')
    if (!parsed) return refuse(400, 'Malformed JSON', 'The request body is not a JSON object')
    const invalid = invalidParameters(parsed)
    if (invalid.length > 0) return refuse(400, 'Invalid params', 'The value of one or more parameters is invalid.', { invalid_parameters: invalid })
    const messageUuid = randomUUID()
    vonage.accepted++
    keep(202, messageUuid)
    answer(response, 202, { message_uuid: messageUuid })
    void reportStatuses(parsed, messageUuid)
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    let size = 0
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk)
    })
    request.on('end', () => void onRequest(request, response, Buffer.concat(chunks)))
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  vonage.port = (server.address() as AddressInfo).port
  vonage.url = `http://127.0.0.1:${vonage.port}/v1/messages`
  return vonage
}

/** The parameters Vonage would refuse in a `viber_service` message, as its `invalid_parameters` lists them. */
function invalidParameters(message: Record<string, unknown>): { name: string; reason: string }[] {
  const invalid: { name: string; reason: string }[] = []
  const check = (name: string, ok: boolean, reason: string) => {
    if (!ok) invalid.push({ name, reason })
  }
  for (const key of Object.keys(message)) check(key, TOP_LEVEL.has(key), 'Unknown parameter')
  check('to', typeof message.to === 'string' && /^[1-9]\d{6,14}$/.test(message.to), 'Must be an E.164 number without + or 00')
  check('from', typeof message.from === 'string' && message.from.length >= 1 && message.from.length <= 50, 'Must be 1 to 50 characters')
  check('channel', message.channel === 'viber_service', 'Must be viber_service')
  check('client_ref', message.client_ref === undefined || (typeof message.client_ref === 'string' && message.client_ref.length <= 100), 'Must be at most 100 characters')
  check('webhook_url', message.webhook_url === undefined || isHttpUrl(message.webhook_url), 'Must be an http(s) URL')
  check('webhook_version', message.webhook_version === undefined || message.webhook_version === 'v1' || message.webhook_version === 'v0.1', 'Must be v1 or v0.1')
  const service = message.viber_service as Record<string, unknown> | undefined
  if (message.message_type === 'text') {
    check('text', typeof message.text === 'string' && message.text.length >= 1 && message.text.length <= 1000, 'Must be 1 to 1000 characters')
    check('image', message.image === undefined, 'Not allowed with message_type text')
  } else if (message.message_type === 'image') {
    const image = message.image as Record<string, unknown> | undefined
    check('image', isObject(image) && Object.keys(image).every((k) => k === 'url' || k === 'caption'), 'Must be {url, caption?}')
    check('image.url', isObject(image) && isHttpUrl(image.url), 'Must be an http(s) URL')
    const caption = isObject(image) ? image.caption : undefined
    check('image.caption', caption === undefined || (typeof caption === 'string' && caption.length >= 1 && caption.length <= 1000), 'Must be 1 to 1000 characters')
    check('text', message.text === undefined, 'Not allowed with message_type image')
    // Viber shows a button under a text: an image alone has none.
    check('viber_service.action', !isObject(service) || service.action === undefined || caption !== undefined, 'A button needs a caption')
  } else {
    check('message_type', false, 'Must be text or image')
  }
  check('viber_service', service === undefined || isObject(service), 'Must be an object')
  if (isObject(service)) {
    for (const key of Object.keys(service)) check(`viber_service.${key}`, ['category', 'ttl', 'type', 'action'].includes(key), 'Unknown parameter')
    check('viber_service.category', service.category === 'transaction' || service.category === 'promotion', 'Must be transaction or promotion')
    check('viber_service.ttl', service.ttl === undefined || (Number.isInteger(service.ttl) && (service.ttl as number) >= 30 && (service.ttl as number) <= 259200), 'Must be an integer from 30 to 259200')
    const action = service.action as Record<string, unknown> | undefined
    if (action !== undefined) {
      check('viber_service.action', isObject(action) && Object.keys(action).every((k) => k === 'url' || k === 'text'), 'Must be {url, text}')
      check('viber_service.action.url', isObject(action) && isHttpUrl(action.url), 'Must be an http(s) URL')
      check('viber_service.action.text', isObject(action) && typeof action.text === 'string' && action.text.length >= 1 && action.text.length <= 30, 'Must be 1 to 30 characters')
    }
  }
  return invalid
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 2000) return false
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol)
  } catch {
    return false
  }
}

function parseJson(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'))
    return isObject(value) ? value : undefined
  } catch {
    return undefined
  }
}

function basicUser(header: string | undefined): string | undefined {
  const encoded = /^Basic (\S+)$/.exec(header ?? '')?.[1]
  return encoded ? Buffer.from(encoded, 'base64').toString('utf8').split(':')[0] : undefined
}

/** Milliseconds since the epoch to the microsecond, comparable between processes (Date.now() has whole ms). */
function epochMs(): number {
  return performance.timeOrigin + performance.now()
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url')
}
