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
    if (this.perSecond <= 0) return
    this.refill()
    this.tokens -= units
    if (this.tokens >= 0) return
    // In debt: wait until the bucket has refilled what was overspent.
    await new Promise((resolve) => setTimeout(resolve, (-this.tokens / this.perSecond) * 1000))
  }

  private refill(): void {
    const now = this.clock()
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.last) / 1000) * this.perSecond)
    this.last = now
  }
}
