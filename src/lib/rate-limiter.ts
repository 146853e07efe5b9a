// A token bucket: at most `perSecond` units a second on average, bursts up to one second's worth.
// take(n) resolves when the n units may be spent; a rate of 0 means no limit.
export class RateLimiter {
  private tokens: number
  private last: number

  constructor(
    private readonly perSecond: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.tokens = perSecond
    this.last = clock()
  }

  async take(units: number): Promise<void> {
    const waitMs = this.reserve(units)
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs))
  }

  /** Spends `units` now and returns how long (ms) the caller must wait before using them. */
  reserve(units: number): number {
    if (this.perSecond <= 0) return 0
    const now = this.clock()
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.last) / 1000) * this.perSecond)
    this.last = now
    this.tokens -= units
    // In debt: the wait until the bucket has refilled what was overspent.
    return this.tokens >= 0 ? 0 : (-this.tokens / this.perSecond) * 1000
  }
}
