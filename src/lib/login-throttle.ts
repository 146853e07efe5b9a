// Counts failed token calls in a sliding window, per (client_id, IP) and per IP — never per client_id
// alone, so an attacker elsewhere cannot lock a real client out (COMPAT.md, Authentication).
// State is per process: with several API processes the allowance is per process, which still bounds guessing.

export interface ThrottleLimits {
  maxFailures: number
  maxFailuresPerIp: number
  windowMs: number
}

export class LoginThrottle {
  private readonly failures = new Map<string, number[]>()

  constructor(
    private readonly limits: ThrottleLimits,
    private readonly now: () => number,
  ) {}

  /** Seconds until the caller may try again, or 0 when it may try now. */
  retryAfterSeconds(clientId: string, ip: string): number {
    const pairWait = this.waitFor(pairKey(clientId, ip), this.limits.maxFailures)
    const ipWait = this.waitFor(ipKey(ip), this.limits.maxFailuresPerIp)
    return Math.ceil(Math.max(pairWait, ipWait) / 1000)
  }

  recordFailure(clientId: string, ip: string): void {
    const at = this.now()
    for (const key of [pairKey(clientId, ip), ipKey(ip)]) {
      const list = this.recent(key)
      list.push(at)
      this.failures.set(key, list)
    }
    if (this.failures.size > 100_000) this.sweep()
  }

  recordSuccess(clientId: string, ip: string): void {
    this.failures.delete(pairKey(clientId, ip))
  }

  private waitFor(key: string, max: number): number {
    const list = this.recent(key)
    if (list.length < max) return 0
    const oldestCounted = list[list.length - max] ?? this.now()
    return Math.max(0, oldestCounted + this.limits.windowMs - this.now())
  }

  private recent(key: string): number[] {
    const since = this.now() - this.limits.windowMs
    return (this.failures.get(key) ?? []).filter((t) => t > since)
  }

  private sweep(): void {
    for (const key of [...this.failures.keys()]) {
      if (this.recent(key).length === 0) this.failures.delete(key)
    }
  }
}

function pairKey(clientId: string, ip: string): string {
  return `pair\u0000${clientId}\u0000${ip}`
}

function ipKey(ip: string): string {
  return `ip\u0000${ip}`
}
