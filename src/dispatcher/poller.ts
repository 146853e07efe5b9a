// Runs a round of work again and again: at once while rounds come back full, after a pause otherwise, and
// after a growing pause while the database is away (outage.ts). Shared by the job runner, the outbox and the
// campaign sender; timers are unref'd, so a poller alone keeps no process alive.
import type { Logger } from 'pino'
import { OutagePacing } from './outage.js'

export interface PollerOptions {
  pollMs: number
  full: number
  log: Logger
  what: string
  /** Pollers of one component share theirs, so an outage is reported once; by default each has its own. */
  outage?: OutagePacing
}

export class Poller {
  private timer: NodeJS.Timeout | undefined
  private round: Promise<unknown> | undefined
  private running = false
  private readonly outage: OutagePacing

  /** `round` returns how much it did; `full` is the amount that means more is probably waiting. */
  constructor(
    private readonly round_: () => Promise<number>,
    private readonly options: PollerOptions,
  ) {
    this.outage = options.outage ?? new OutagePacing(options.log)
  }

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
    let next = this.options.pollMs
    const round = this.round_().then(
      (done) => {
        this.outage.succeeded()
        if (done >= this.options.full) next = 0
      },
      (err: unknown) => {
        const pause = this.outage.pauseAfter(err)
        if (pause === undefined) this.options.log.error({ err }, `${this.options.what} failed`)
        else next = pause
      },
    )
    this.round = round
    await round
    this.round = undefined
    if (this.running) this.schedule(next)
  }
}
