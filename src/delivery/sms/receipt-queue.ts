// Receipts on their way to the channel's handler: in batches (those that arrived while the previous batch was
// being stored, up to 1,000), one batch at a time, each receipt acknowledged only once the handler settled, so a
// receipt is never acknowledged before it is stored. Also carries the capture Viber channel's simulated reports.
import type { Logger } from 'pino'
import type { DeliveryReceipt } from './channel.js'

export type ReceiptHandler<T = DeliveryReceipt> = (receipts: T[]) => Promise<void>

/** Called once per receipt: true when the handler stored it, false when it failed or there is no handler. */
export type ReceiptSettled = (stored: boolean) => void

const MAX_BATCH = 1000

export class ReceiptQueue<T = DeliveryReceipt> {
  private handler: ReceiptHandler<T> | undefined
  private pending: { receipt: T; settled: ReceiptSettled }[] = []
  private running = false
  private scheduled = false

  constructor(private readonly log?: Logger) {}

  setHandler(handler: ReceiptHandler<T>): void {
    this.handler = handler
  }

  hasHandler(): boolean {
    return this.handler !== undefined
  }

  /** Queues a receipt for the handler; without a handler it is refused at once (its sender may try again later). */
  push(receipt: T, settled: ReceiptSettled): void {
    if (!this.handler) return settled(false)
    this.pending.push({ receipt, settled })
    this.schedule()
  }

  // setImmediate: the receipts of one read from the socket go to the handler together.
  private schedule(): void {
    if (this.running || this.scheduled || this.pending.length === 0) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      void this.flush()
    })
  }

  private async flush(): Promise<void> {
    const handler = this.handler
    if (!handler || this.running) return
    const batch = this.pending.splice(0, MAX_BATCH)
    this.running = true
    let stored = true
    try {
      await handler(batch.map((item) => item.receipt))
    } catch (err) {
      stored = false
      this.log?.warn({ err, receipts: batch.length }, 'the delivery receipt handler failed; the receipts are refused so that they come again')
    }
    this.running = false
    for (const item of batch) item.settled(stored)
    this.schedule()
  }
}
