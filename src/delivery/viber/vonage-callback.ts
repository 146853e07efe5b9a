// Vonage's status callbacks, verified the way Vonage signs them and read into reports. Vonage puts an HS256 JWT in
// `Authorization: Bearer`, signed with the account's signature secret, with the claims iat, jti, iss, api_key and
// payload_hash (hex SHA-256 of the raw body): https://developer.vonage.com/en/messages/concepts/signed-webhooks,
// docs/decisions/0003-viber-provider.md §2. Anything that is not exactly that is refused, before the body is read.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import type * as Jose from 'jose'
import { lazyImport } from '../../lib/lazy-require.js'

// jose is loaded by the first callback, not by every process at start.
const jose = lazyImport(() => import('jose'))
import { VIBER_REPORT_STATES, type ViberReport, type ViberReportState } from './channel.js'

export interface VonageCallbackOptions {
  signatureSecret: string
  /** Our API key: the token's `api_key` must be it (the key says which account's secret signed it). */
  apiKey: string
  now?: () => number
  /** How old a token's `iat` may be (default 300 s, the window the replay guard covers). */
  maxAgeSeconds?: number
  /** The tokens already taken (default: one set for the whole process). */
  seen?: SeenTokens
}

export type VonageCallbackResult =
  | { ok: true; report: ViberReport; /** Forget the token: call it when the report could not be stored, so that Vonage's retry is taken. */ release: () => void }
  | { ok: false; reason: string }

/** Status callbacks are ~0.5 KiB; a body beyond this is not one. */
export const MAX_CALLBACK_BYTES = 16 * 1024
/** A Vonage token is ~0.4 KiB; a header beyond this is not one (and is not worth an HMAC). */
const MAX_AUTHORIZATION_LENGTH = 4096
/** Vonage's clock may run a little ahead of ours. */
const FUTURE_SKEW_SECONDS = 60
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/
/** client_ref carries our message id (vonage-request.ts): a positive safe integer, in decimal. */
const MESSAGE_ID = /^[1-9][0-9]{0,15}$/
const MAX_ID_LENGTH = 100
const MAX_ERROR_LENGTH = 300

/**
 * A report from a callback whose token verifies: HS256 only, signed with our secret, for our API key, over this
 * very body, issued in the last `maxAgeSeconds` and not seen before in this process. Never throws.
 */
export async function verifyVonageCallback(rawBody: Buffer, authorization: string | undefined, options: VonageCallbackOptions): Promise<VonageCallbackResult> {
  if (rawBody.length > MAX_CALLBACK_BYTES) return refused('body too large')
  if (!authorization || authorization.length > MAX_AUTHORIZATION_LENGTH) return refused('no bearer token')
  const token = BEARER.exec(authorization)?.[1]
  if (!token) return refused('no bearer token')
  const now = (options.now ?? Date.now)()
  const maxAgeSeconds = options.maxAgeSeconds ?? 300

  const claims = verifyHs256(await jose(), token, options.signatureSecret, now)
  if (typeof claims === 'string') return refused(`token refused (${claims})`)
  const claimed = checkClaims(claims, rawBody, { apiKey: options.apiKey, now, maxAgeSeconds })
  if (typeof claimed === 'string') return refused(claimed)

  const report = reportOf(rawBody, now)
  if (typeof report === 'string') return refused(report)
  const seen = options.seen ?? processSeenTokens
  if (!seen.take(claimed.jti, claimed.iat * 1000 + maxAgeSeconds * 1000, now)) return refused('token already used')
  return { ok: true, report, release: () => seen.release(claimed.jti) }
}

function checkClaims(claims: Record<string, unknown>, rawBody: Buffer, rules: { apiKey: string; now: number; maxAgeSeconds: number }): { jti: string; iat: number } | string {
  const { iat, jti, api_key: apiKey, payload_hash: payloadHash } = claims
  if (typeof apiKey !== 'string' || !equalText(apiKey, rules.apiKey)) return 'api_key is not ours'
  if (typeof payloadHash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(payloadHash)) return 'no payload_hash'
  const actual = createHash('sha256').update(rawBody).digest()
  if (!timingSafeEqual(Buffer.from(payloadHash, 'hex'), actual)) return 'payload_hash does not match the body'
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return 'no iat'
  const ageSeconds = rules.now / 1000 - iat
  if (ageSeconds > rules.maxAgeSeconds) return 'token too old'
  if (ageSeconds < -FUTURE_SKEW_SECONDS) return 'token issued in the future'
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_ID_LENGTH) return 'no jti'
  return { jti, iat }
}

/** The report a verified body carries, or why it is not one of ours. */
function reportOf(rawBody: Buffer, now: number): ViberReport | string {
  let body: unknown
  try {
    body = JSON.parse(rawBody.toString('utf8'))
  } catch {
    return 'the body is not JSON'
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'the body is not an object'
  const fields = body as Record<string, unknown>
  // Vonage also calls the status URL for other channels and for inbound messages; only Viber statuses are ours.
  if (fields.channel !== undefined && fields.channel !== 'viber_service') return 'not a Viber callback'
  const { message_uuid: uuid, client_ref: clientRef, status, timestamp } = fields
  if (typeof uuid !== 'string' || uuid.length === 0 || uuid.length > MAX_ID_LENGTH) return 'no message_uuid'
  if (typeof status !== 'string' || !(VIBER_REPORT_STATES as readonly string[]).includes(status)) return 'unknown status'
  if (typeof clientRef !== 'string' || !MESSAGE_ID.test(clientRef) || !Number.isSafeInteger(Number(clientRef))) return 'client_ref is not one of our message ids'
  const at = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN
  const report: ViberReport = { messageId: Number(clientRef), providerId: uuid, state: status as ViberReportState, at: Number.isNaN(at) ? now : at }
  const error = errorText(fields.error)
  if (error) report.error = error
  return report
}

/** v1 `{type, title, detail, instance}` (title may be the numeric code) or v0.1 `{code, reason}`, as one line. */
function errorText(error: unknown): string | undefined {
  if (!error || typeof error !== 'object') return undefined
  const { title, detail, code, reason } = error as Record<string, unknown>
  const parts = [title ?? code, detail ?? reason].filter((p) => typeof p === 'string' || typeof p === 'number').map(String)
  if (parts.length === 0) return undefined
  const text = parts.join(': ').replace(/[\u0000-\u001f\u007f]+/g, ' ')
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text
}

function equalText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)]
  return x.length === y.length && timingSafeEqual(x, y)
}

function refused(reason: string): VonageCallbackResult {
  return { ok: false, reason }
}

/**
 * The claims of `token` if it is an HS256 JWT signed with `secret` and valid at `now`; otherwise why not. This is
 * jose's jwtVerify with `algorithms: ['HS256']` done with node:crypto's HMAC, at once: jose's goes through WebCrypto,
 * a job on libuv's thread pool for each token, which was a fifth of the server's time in a Viber campaign
 * (docs/benchmarks.md: 4,807 messages/s against 3,881, 254 µs of CPU a message against 306). jose still decodes.
 */
function verifyHs256({ decodeJwt, decodeProtectedHeader }: typeof Jose, token: string, secret: string, now: number): Record<string, unknown> | string {
  let header: ReturnType<typeof decodeProtectedHeader>
  try {
    header = decodeProtectedHeader(token)
  } catch {
    return 'malformed header'
  }
  // HS256 only: a token saying `none`, RS256, HS512 or anything else is refused before any key is used.
  if (header.alg !== 'HS256') return 'algorithm not allowed'
  // RFC 7515 §4.1.11: an extension marked critical must be understood, and Vonage sends none.
  if (header.crit !== undefined) return 'unknown critical extension'
  const dot = token.lastIndexOf('.')
  const expected = createHmac('sha256', secret).update(token.slice(0, dot)).digest()
  // BEARER let only base64url characters through: the decoding is exact.
  const given = Buffer.from(token.slice(dot + 1), 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'signature verification failed'
  let claims: Record<string, unknown>
  try {
    claims = decodeJwt(token)
  } catch {
    return 'malformed claims'
  }
  // RFC 7519 §4.1.4, §4.1.5, as jose checks them when present (no clock tolerance).
  const seconds = Math.floor(now / 1000)
  if (claims.exp !== undefined && !(typeof claims.exp === 'number' && claims.exp > seconds)) return 'expired'
  if (claims.nbf !== undefined && !(typeof claims.nbf === 'number' && claims.nbf <= seconds)) return 'not valid yet'
  return claims
}

/**
 * Token ids taken in the replay window, each until its token expires. Bounded: when full, the oldest goes first,
 * so a flood of genuine callbacks can only reopen a replay of a token older than the ones kept (and a replay only
 * repeats what Vonage said: the body is covered by the signature). 200,000 ids: 660 callbacks a second for the
 * 300 s window, in ~20 MiB (measured).
 */
export class SeenTokens {
  private readonly expiries = new Map<string, number>()

  constructor(private readonly capacity = 200_000) {}

  /** True the first time `id` is taken while unexpired; false when it already was. */
  take(id: string, expiresAt: number, now: number): boolean {
    this.dropExpired(now)
    if (this.expiries.has(id)) return false
    if (this.expiries.size >= this.capacity) this.expiries.delete(this.expiries.keys().next().value!)
    this.expiries.set(id, expiresAt)
    return true
  }

  release(id: string): void {
    this.expiries.delete(id)
  }

  get size(): number {
    return this.expiries.size
  }

  // Every token gets the same window from its iat, and tokens come roughly in iat order: the ids that expired are
  // at the front of the insertion order, so this touches only them (amortized O(1) a call).
  private dropExpired(now: number): void {
    for (const [id, expiresAt] of this.expiries) {
      if (expiresAt > now) return
      this.expiries.delete(id)
    }
  }
}

const processSeenTokens = new SeenTokens()
