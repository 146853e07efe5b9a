// Standard Webhooks signatures (standardwebhooks.com): receivers check them with the same `standardwebhooks`
// package (or its ports to other languages), so signing with it keeps our headers exactly what they verify.
import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'

/** A new signing secret in the spec's `whsec_<base64>` form; 24 bytes is the spec's minimum key length. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`
}

/** The three headers that let a receiver check `body` came from us, unchanged, at `timestampSeconds`. */
export function signatureHeaders(secret: string, msgId: string, timestampSeconds: number, body: string): Record<string, string> {
  // The signature covers whole seconds; the header must carry the same number or no receiver can verify it.
  const seconds = Math.floor(timestampSeconds)
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': new Webhook(secret).sign(msgId, new Date(seconds * 1000), body),
  }
}
