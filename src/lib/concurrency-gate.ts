// Runs at most `limit` tasks at once with at most `queue` more waiting, and refuses the rest at once: a
// flood is answered quickly instead of piling up behind a small shared resource (the libuv thread pool).

export type GateOutcome<T> = { admitted: true; value: T } | { admitted: false }

export class ConcurrencyGate {
  private running = 0
  private readonly waiting: (() => void)[] = []

  constructor(private readonly limits: { limit: number; queue: number }) {}

  /** Runs `task` when a slot is free, or answers `admitted: false` at once when the queue is full too. */
  async run<T>(task: () => Promise<T>): Promise<GateOutcome<T>> {
    if (this.running < this.limits.limit) this.running++
    else if (this.waiting.length < this.limits.queue) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else return { admitted: false }
    try {
      return { admitted: true, value: await task() }
    } finally {
      // A finished task hands its slot straight to the next waiter, so `running` never overshoots.
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }
}
