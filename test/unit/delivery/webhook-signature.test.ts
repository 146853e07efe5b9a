import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import { newWebhookSecret, signatureHeaders } from '../../../src/delivery/webhooks/signature.js'

const body = '0%5Bevent%5D=open&0%5Bemail%5D=a%40b.com'
const now = () => Math.floor(Date.now() / 1000)

describe('webhook signature', () => {
  it('makes whsec_ secrets of 24 random bytes', () => {
    const secret = newWebhookSecret()
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/)
    assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 24)
    assert.notEqual(newWebhookSecret(), secret)
  })

  it('signs so that a receiver using standardwebhooks accepts the request', () => {
    const secret = newWebhookSecret()
    const headers = signatureHeaders(secret, 'msg_1', now(), body)
    assert.deepEqual(Object.keys(headers).sort(), ['webhook-id', 'webhook-signature', 'webhook-timestamp'])
    // The body is a form, not JSON: receivers must turn off the package's JSON parsing of the payload.
    assert.equal(new Webhook(secret).verify(body, headers, { jsonParse: false }), undefined)
  })

  it('is the spec signature: v1, base64 HMAC-SHA256 of "id.timestamp.body"', () => {
    const key = Buffer.alloc(24, 7)
    const headers = signatureHeaders(`whsec_${key.toString('base64')}`, 'msg_2', 1700000000, body)
    const mac = createHmac('sha256', key).update(`msg_2.1700000000.${body}`).digest('base64')
    assert.deepEqual(headers, { 'webhook-id': 'msg_2', 'webhook-timestamp': '1700000000', 'webhook-signature': `v1,${mac}` })
    assert.deepEqual(signatureHeaders(`whsec_${key.toString('base64')}`, 'msg_2', 1700000000.9, body), headers, 'whole seconds in both')
  })

  it('fails verification for a changed body, id, timestamp or secret', () => {
    const secret = newWebhookSecret()
    const ts = now()
    const headers = signatureHeaders(secret, 'msg_3', ts, body)
    const rejects = (payload: string, given: Record<string, string>, key = secret) =>
      assert.throws(() => new Webhook(key).verify(payload, given, { jsonParse: false }), WebhookVerificationError)
    rejects(`${body}&1%5Bevent%5D=open`, headers)
    rejects(body, { ...headers, 'webhook-id': 'msg_4' })
    rejects(body, { ...headers, 'webhook-timestamp': String(ts - 1) })
    rejects(body, headers, newWebhookSecret())
  })
})
