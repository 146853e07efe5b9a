// What the Vonage Messages API is sent for one Viber message, and what its answer means for us. Pure: the
// transport is vonage.ts. Sources: Vonage's Node SDK (MessageParams, Viber{Text,Image}Params, ViberService,
// ViberAction) and the Messages API reference, summed up in docs/decisions/0003-viber-provider.md §1.
import type { OutboundViber, ViberSendResult } from './channel.js'

/** The JSON body of `POST /v1/messages` for the `viber_service` channel. */
export interface VonageViberRequest {
  to: string
  from: string
  channel: 'viber_service'
  message_type: 'text' | 'image'
  text?: string
  image?: { url: string; caption?: string }
  viber_service: { category: 'promotion' | 'transaction'; ttl: number; action?: { url: string; text: string } }
  client_ref: string
  webhook_url: string
}

/**
 * The request for `message`: an image (with the text as its caption) when there is one, a text otherwise; the
 * button is `viber_service.action` in both. An error when there is nothing to show (no text, no image).
 */
export function vonageRequestOf(message: OutboundViber, webhookUrl: string): VonageViberRequest | Error {
  const viberService: VonageViberRequest['viber_service'] = { category: message.category, ttl: message.ttlSeconds }
  if (message.button) viberService.action = { url: message.button.url, text: message.button.text }
  const common = { to: message.to, from: message.from, channel: 'viber_service' as const }
  const references = { client_ref: String(message.messageId), webhook_url: webhookUrl }
  if (message.imageUrl !== null) {
    const image = message.text ? { url: message.imageUrl, caption: message.text } : { url: message.imageUrl }
    return { ...common, message_type: 'image', image, viber_service: viberService, ...references }
  }
  if (!message.text) return new Error('a Viber message needs a text or an image')
  return { ...common, message_type: 'text', text: message.text, viber_service: viberService, ...references }
}

/** A provider's reason as we keep it: one line, at most this long (the dispatcher stores it with the message). */
const MAX_REASON_LENGTH = 300
/** Retry-After beyond this is read as this: a provider's hint, not a reason to park a message for a day. */
const MAX_RETRY_AFTER_MS = 60 * 60 * 1000
/** Too many requests, a timeout, and what the operator must fix for all messages (see resultOfAnswer). */
const RETRYABLE_4XX = new Set([401, 402, 403, 404, 408, 429])
/** Vonage's message_uuid is a UUID; client_ref is ≤ 100 characters, so nothing longer is an id of theirs. */
const MAX_PROVIDER_ID_LENGTH = 100

export interface VonageAnswer {
  status: number
  /** The Retry-After header, if any. */
  retryAfter: string | undefined
  body: Buffer
}

/**
 * The result of an answer. 202 with a message_uuid: accepted. 429, 408 and 5xx: try again later (Retry-After
 * honoured). 401, 402, 403, 404 and redirects also: they say the account or the settings are wrong (bad
 * credentials, no credit, a wrong TIDINGS_VIBER_URL), which holds for every message alike and is fixed by the
 * operator, so failing the campaign's recipients for good (and paying their SMS fallback) would be wrong. Any
 * other 4xx is about this message: not retried. `secrets` never appear in the reason, whatever the body echoes.
 */
export function resultOfAnswer(answer: VonageAnswer, secrets: readonly string[], now: number): ViberSendResult {
  const { status } = answer
  if (status >= 200 && status < 300) {
    const uuid = (parseJson(answer.body) as { message_uuid?: unknown } | undefined)?.message_uuid
    if (typeof uuid === 'string' && uuid.length > 0 && uuid.length <= MAX_PROVIDER_ID_LENGTH) return { ok: true, providerId: uuid }
    // Accepted but unnamed: not retried, as a retry could send it twice (the API takes no idempotency key).
    return { ok: false, retryable: false, reason: `HTTP ${status} without a message_uuid` }
  }
  const reason = redacted(`HTTP ${status}${problemText(answer.body)}`, secrets)
  const retryable = status >= 500 || RETRYABLE_4XX.has(status) || (status >= 300 && status < 400)
  if (!retryable) return { ok: false, retryable, reason }
  const retryAfterMs = retryAfterOf(answer.retryAfter, now)
  return retryAfterMs === undefined ? { ok: false, retryable, reason } : { ok: false, retryable, reason, retryAfterMs }
}

/** `: title: detail (name: reason, …)` of an RFC 7807 body, or '' when the body is not one. */
function problemText(body: Buffer): string {
  const problem = parseJson(body) as { title?: unknown; detail?: unknown; invalid_parameters?: unknown } | undefined
  if (!problem || typeof problem !== 'object') return ''
  const parts = [problem.title, problem.detail].filter((p) => typeof p === 'string' || typeof p === 'number').map(String)
  const invalid = Array.isArray(problem.invalid_parameters)
    ? problem.invalid_parameters
        .slice(0, 3)
        .map((p: { name?: unknown; reason?: unknown }) => (p && typeof p.name === 'string' ? `${p.name}: ${typeof p.reason === 'string' ? p.reason : 'invalid'}` : ''))
        .filter(Boolean)
    : []
  const text = parts.join(': ') + (invalid.length > 0 ? ` (${invalid.join(', ')})` : '')
  return text ? `: ${text}` : ''
}

/** `text` on one line, each secret replaced, then cut (cutting first could leave a secret's beginning). */
function redacted(text: string, secrets: readonly string[]): string {
  let safe = text.replace(/[\u0000-\u001f\u007f]+/g, ' ')
  for (const secret of secrets) if (secret.length > 0) safe = safe.split(secret).join('***')
  return safe.length > MAX_REASON_LENGTH ? `${safe.slice(0, MAX_REASON_LENGTH - 1)}…` : safe
}

/** RFC 9110 §10.2.3: delay-seconds or an HTTP-date; capped, and undefined when absent or unreadable. */
export function retryAfterOf(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined
  const value = header.trim()
  const ms = /^\d{1,10}$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now
  if (Number.isNaN(ms)) return undefined
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS)
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'))
  } catch {
    return undefined
  }
}
