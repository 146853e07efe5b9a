// The capture SMS channel: the default when no SMSC is configured. Nothing leaves the machine; every part gets an
// id and, a moment later, a simulated `delivered` receipt through the same handler path as an SMSC's receipts
// (a handler that fails gets it again after the same delay, as an SMSC would send it again).
import { randomUUID } from 'node:crypto'
import type { DeliveryReceipt, OutboundSms, SmsChannel, SmsSendResult } from './channel.js'
import { ReceiptQueue } from './receipt-queue.js'
import { segmentsOf } from './text.js'

export interface CaptureSmsOptions {
  /** Milliseconds between a send and its receipts (default 1000). */
  receiptDelayMs?: number
  now?: () => number
}

export function captureSmsChannel(options: CaptureSmsOptions = {}): SmsChannel {
  const receiptDelayMs = options.receiptDelayMs ?? 1000
  const now = options.now ?? Date.now
  const receipts = new ReceiptQueue()
  const timers = new Set<NodeJS.Timeout>()
  let closed = false

  const deliverLater = (providerId: string) => {
    const timer = setTimeout(() => {
      timers.delete(timer)
      const receipt: DeliveryReceipt = { providerId, state: 'delivered', final: true, at: now() }
      receipts.push(receipt, (stored) => {
        if (!stored && !closed && receipts.hasHandler()) deliverLater(providerId)
      })
    }, receiptDelayMs)
    timers.add(timer)
  }

  return {
    name: 'capture',
    send: async (batch: readonly OutboundSms[]): Promise<SmsSendResult[]> =>
      batch.map((sms) => {
        const providerIds = Array.from({ length: segmentsOf(sms.text).segments }, () => `capture-${randomUUID()}`)
        if (!closed) providerIds.forEach(deliverLater)
        return { ok: true, providerIds, captured: true }
      }),
    onReceipt: (handler) => receipts.setHandler(handler),
    close: async () => {
      closed = true
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
    },
  }
}
