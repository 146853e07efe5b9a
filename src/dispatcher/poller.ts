// Runs a round of work again and again: at once while rounds come back full, after a pause otherwise.
// Shared by the job runner and the outbox sender; timers are unref'd, so a poller alone keeps no process alive.
import type { Logger } from 'pino'

export class Poller {
  private timer: NodeJS.Timeout | undefined
  private round: Promise<unknown> | undefined
  private running = false

  /** `round` returns how much it did; `full` is the amount that means more is probably waiting. */
  constructor(
    private readonly round_: () => Promise<number>,
    private readonly options: { pollMs: number; full: number; log: Logger; what: string },
  ) {}

  start(): void {
    if (this.running) return
    this.running = true
    this.schedule(0)
  }

  /** Stops polling and waits for the round in flight to finish. */
  async stop(): Promise<void> {
    this.running = false
    clearTimeout(this.timer)
    await this.round
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => void this.poll(), delayMs)
    this.timer.unref()
  }

  private async poll(): Promise<void> {
    let done = 0
    const round = this.round_().then(
      (count) => void (done = count),
      (err: unknown) => this.options.log.error({ err }, `${this.options.what} failed`),
    )
    this.round = round
    await round
    this.round = undefined
    if (this.running) this.schedule(done >= this.options.full ? 0 : this.options.pollMs)
  }
}
