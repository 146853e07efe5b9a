// The capture Viber channel: the default when no provider URL is set. Nothing leaves the machine; every message
// gets an id and, a moment later, a simulated `delivered` report through the channel's report handler (a handler
// that fails gets it again after the same delay, as Vonage sends a callback again after a 5xx answer).
import { randomUUID } from 'node:crypto'
import { ReceiptQueue } from '../sms/receipt-queue.js'
import type { OutboundViber, ViberChannel, ViberReport, ViberSendResult } from './channel.js'

export interface CaptureViberOptions {
  /** Milliseconds between a send and its report (default 1000). */
  reportDelayMs?: number
  now?: () => number
}

export function captureViberChannel(options: CaptureViberOptions = {}): ViberChannel {
  const reportDelayMs = options.reportDelayMs ?? 1000
  const now = options.now ?? Date.now
  const reports = new ReceiptQueue<ViberReport>()
  const timers = new Set<NodeJS.Timeout>()
  let closed = false

  const deliverLater = (messageId: number, providerId: string) => {
    const timer = setTimeout(() => {
      timers.delete(timer)
      const report: ViberReport = { messageId, providerId, state: 'delivered', at: now() }
      reports.push(report, (stored) => {
        if (!stored && !closed && reports.hasHandler()) deliverLater(messageId, providerId)
      })
    }, reportDelayMs)
    timers.add(timer)
  }

  return {
    name: 'capture',
    send: async (batch: readonly OutboundViber[]): Promise<ViberSendResult[]> =>
      batch.map((message) => {
        const providerId = `capture-${randomUUID()}`
        if (!closed) deliverLater(message.messageId, providerId)
        return { ok: true, providerId, captured: true }
      }),
    onReport: (handler) => reports.setHandler(handler),
    close: async () => {
      closed = true
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
    },
  }
}
