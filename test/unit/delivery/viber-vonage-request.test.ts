// What the Vonage adapter sends for each of the four Viber message shapes (API.md 4.10.1), and how it reads
// Vonage's answers: accepted, retried later (with Retry-After), or refused for good, never echoing a secret.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { OutboundViber } from '../../../src/delivery/viber/channel.js'
import { resultOfAnswer, retryAfterOf, vonageRequestOf } from '../../../src/delivery/viber/vonage-request.js'

const WEBHOOK = 'https://tidings.example/viber/callbacks/vonage'
const message = (fields: Partial<OutboundViber>): OutboundViber => ({
  messageId: 42,
  to: '380501234567',
  from: 'Tidings',
  category: 'promotion',
  text: null,
  imageUrl: null,
  button: null,
  ttlSeconds: 3600,
  ...fields,
})
const common = { to: '380501234567', from: 'Tidings', channel: 'viber_service', client_ref: '42', webhook_url: WEBHOOK }

describe('Vonage request of a Viber message', () => {
  it('sends a text alone as message_type text', () => {
    assert.deepEqual(vonageRequestOf(message({ text: 'Hello', category: 'transaction', ttlSeconds: 60 }), WEBHOOK), {
      ...common,
      message_type: 'text',
      text: 'Hello',
      viber_service: { category: 'transaction', ttl: 60 },
    })
  })

  it('sends a text with a button as message_type text with viber_service.action', () => {
    const request = vonageRequestOf(message({ text: 'Sale today', button: { text: 'Open', url: 'https://tidings.example/v/c/tok' } }), WEBHOOK)
    assert.deepEqual(request, {
      ...common,
      message_type: 'text',
      text: 'Sale today',
      viber_service: { category: 'promotion', ttl: 3600, action: { url: 'https://tidings.example/v/c/tok', text: 'Open' } },
    })
  })

  it('sends a text, a button and an image as message_type image with the text as caption', () => {
    const request = vonageRequestOf(message({ text: 'Sale today', imageUrl: 'https://cdn.example/p.jpg', button: { text: 'Open', url: 'https://tidings.example/v/c/tok' } }), WEBHOOK)
    assert.deepEqual(request, {
      ...common,
      message_type: 'image',
      image: { url: 'https://cdn.example/p.jpg', caption: 'Sale today' },
      viber_service: { category: 'promotion', ttl: 3600, action: { url: 'https://tidings.example/v/c/tok', text: 'Open' } },
    })
  })

  it('sends an image alone as message_type image without a caption', () => {
    assert.deepEqual(vonageRequestOf(message({ imageUrl: 'https://cdn.example/p.jpg' }), WEBHOOK), {
      ...common,
      message_type: 'image',
      image: { url: 'https://cdn.example/p.jpg' },
      viber_service: { category: 'promotion', ttl: 3600 },
    })
  })

  it('refuses a message with neither text nor image', () => {
    assert.ok(vonageRequestOf(message({ text: '' }), WEBHOOK) instanceof Error)
  })
})

describe('Vonage answer', () => {
  const NOW = Date.parse('2026-01-01T00:00:00Z')
  const answer = (status: number, body: unknown, retryAfter?: string) => ({ status, retryAfter, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) })
  const problem = (title: string, detail: string, extra = {}) => ({ type: 'https://developer.vonage.com/api-errors#x', title, detail, instance: 'i', ...extra })

  it('is accepted with the message_uuid of a 202', () => {
    assert.deepEqual(resultOfAnswer(answer(202, { message_uuid: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab' }), [], NOW), { ok: true, providerId: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab' })
  })

  it('is refused for good, not retried, when a 2xx names no message (a retry could send it twice)', () => {
    assert.deepEqual(resultOfAnswer(answer(200, '<html>'), [], NOW), { ok: false, retryable: false, reason: 'HTTP 200 without a message_uuid' })
  })

  it('is refused for good on a 400, with the problem title, detail and invalid parameters', () => {
    const result = resultOfAnswer(answer(400, problem('Invalid params', 'The value of one or more parameters is invalid.', { invalid_parameters: [{ name: 'to', reason: 'Must be E.164' }] })), [], NOW)
    assert.deepEqual(result, { ok: false, retryable: false, reason: 'HTTP 400: Invalid params: The value of one or more parameters is invalid. (to: Must be E.164)' })
  })

  it('is retried on 429, 5xx and 408, with Retry-After in seconds or as a date', () => {
    assert.deepEqual(resultOfAnswer(answer(429, problem('Too Many Requests', 'slow down'), '2'), [], NOW), { ok: false, retryable: true, reason: 'HTTP 429: Too Many Requests: slow down', retryAfterMs: 2000 })
    assert.deepEqual(resultOfAnswer(answer(503, '', 'Thu, 01 Jan 2026 00:00:30 GMT'), [], NOW), { ok: false, retryable: true, reason: 'HTTP 503', retryAfterMs: 30_000 })
    assert.deepEqual(resultOfAnswer(answer(500, 'oops'), [], NOW), { ok: false, retryable: true, reason: 'HTTP 500' })
    assert.deepEqual(resultOfAnswer(answer(408, ''), [], NOW), { ok: false, retryable: true, reason: 'HTTP 408' })
  })

  it('is retried on what the operator fixes for every message alike: credentials, credit, the URL', () => {
    for (const status of [301, 401, 402, 403, 404]) {
      const result = resultOfAnswer(answer(status, problem('t', 'd')), [], NOW)
      assert.equal(!result.ok && result.retryable, true, `HTTP ${status}`)
    }
    for (const status of [409, 413, 415, 422]) {
      const result = resultOfAnswer(answer(status, problem('t', 'd')), [], NOW)
      assert.equal(!result.ok && result.retryable, false, `HTTP ${status}`)
    }
  })

  it('never shows a secret the body echoes, even cut short, and keeps the reason on one short line', () => {
    const secret = 'S3cr3tS3cr3t'
    const long = `${'x'.repeat(290)} key ${secret}`
    const result = resultOfAnswer(answer(401, problem('Unauthorized', `bad api_key vonage-key secret ${secret}\r\n${long}`)), ['vonage-key', secret], NOW)
    assert.ok(!result.ok)
    assert.ok(!result.reason.includes(secret) && !result.reason.includes('vonage-key') && !result.reason.includes('S3cr3t'), result.reason)
    assert.ok(!/[\r\n]/.test(result.reason))
    assert.ok(result.reason.length <= 300)
  })

  it('reads Retry-After within bounds', () => {
    assert.equal(retryAfterOf(undefined, NOW), undefined)
    assert.equal(retryAfterOf('soon', NOW), undefined)
    assert.equal(retryAfterOf('Wed, 31 Dec 2025 23:00:00 GMT', NOW), 0, 'a date in the past: now')
    assert.equal(retryAfterOf('999999', NOW), 3_600_000, 'capped at an hour')
  })
})
