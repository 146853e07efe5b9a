// Counts failed token calls in a sliding window, per (client_id, client network) and per client network —
// never per client_id alone, so an attacker elsewhere cannot lock a real client out (COMPAT.md,
// Authentication). A client network is an IPv4 address or an IPv6 /64: one host usually holds a whole /64
// (RFC 6177 advises /56 or /48 per site, /64 per subnet), so counting single IPv6 addresses counts nothing.
// State is per process: with several API processes the allowance is per process, which still bounds guessing.
import ipaddr from 'ipaddr.js'

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
    const network = clientNetwork(ip)
    const pairWait = this.waitFor(pairKey(clientId, network), this.limits.maxFailures)
    const ipWait = this.waitFor(networkKey(network), this.limits.maxFailuresPerIp)
    return Math.ceil(Math.max(pairWait, ipWait) / 1000)
  }

  recordFailure(clientId: string, ip: string): void {
    const at = this.now()
    const network = clientNetwork(ip)
    for (const key of [pairKey(clientId, network), networkKey(network)]) {
      const list = this.recent(key)
      list.push(at)
      this.failures.set(key, list)
    }
    if (this.failures.size > 100_000) this.sweep()
  }

  recordSuccess(clientId: string, ip: string): void {
    this.failures.delete(pairKey(clientId, clientNetwork(ip)))
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

/** The unit failures are counted by: an IPv4 address (also when IPv4-mapped, `::ffff:a.b.c.d`) or an IPv6 /64. */
export function clientNetwork(ip: string): string {
  let address: ipaddr.IPv4 | ipaddr.IPv6
  try {
    address = ipaddr.process(ip)
  } catch {
    return ip
  }
  if (address.kind() === 'ipv4') return address.toString()
  const prefix = (address as ipaddr.IPv6).parts.slice(0, 4)
  return `${new ipaddr.IPv6([...prefix, 0, 0, 0, 0]).toString()}/64`
}

function pairKey(clientId: string, network: string): string {
  return `pair\u0000${clientId}\u0000${network}`
}

function networkKey(network: string): string {
  return `ip\u0000${network}`
}
