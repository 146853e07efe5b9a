// The capture channel: the default when no SMTP relay is configured. Nothing leaves the machine; every
// email counts as delivered and stays readable where it was stored (the outbox), for trying the service
// and for other people's tests.
import { randomUUID } from 'node:crypto'
import type { EmailChannel, OutboundEmail, SendResult } from '../channel.js'

export function captureChannel(): EmailChannel {
  return {
    name: 'capture',
    send: async (batch: readonly OutboundEmail[]): Promise<SendResult[]> => batch.map(() => ({ ok: true, providerId: `captured-${randomUUID()}`, captured: true })),
    close: async () => {},
  }
}
