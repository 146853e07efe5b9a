// Runs a round of work again and again: at once while rounds come back full, after a pause otherwise, and
// after a growing pause while the database is away (outage.ts). Shared by the job runner, the outbox and the
// campaign sender; its pauses are unref'd timers, so an idle poller keeps no process alive.
//
// "At once" is the next turn of the event loop, after the I/O waiting now (setImmediate), not setTimeout(0): Node
// runs every timer that is due before it reads a socket again, and a round lasts longer than the 1 ms of a
// setTimeout(0), so two pollers whose rounds came back full (the campaign sender's two batches in flight) ran
// round after round without end. On SQLite, where a round never waits for the network, an open pixel waited
// behind 10-47 rounds while a campaign of 98,000 sent (p50 55 ms, idle 0.8 ms; docs/benchmarks.md "Scale of work").
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
  private immediate: NodeJS.Immediate | undefined
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
    clearImmediate(this.immediate)
    await this.round
  }

  private schedule(delayMs: number): void {
    // Not unref'd: Node does not wake from its wait for I/O for an unref'd immediate, which would then wait for the
    // next timer or socket. It lives until the next turn of the loop, and only while there is work.
    if (delayMs === 0) this.immediate = setImmediate(() => void this.poll())
    else {
      this.timer = setTimeout(() => void this.poll(), delayMs)
      this.timer.unref()
    }
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
