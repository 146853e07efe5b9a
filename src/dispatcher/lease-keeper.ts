// Keeps the lease of work in flight: renews it every third of its length until the work ends, so a batch that
// waits on the rate limiter or on a slow relay is never claimed by a second worker while this one lives, and
// the lease of a worker that died still ends on time. Bounding the waits instead would not do: RFC 5321
// §4.5.3.2.6 gives a relay 10 minutes to answer the end of DATA (nodemailer waits as long), twice the default
// 300 s lease, and giving up sooner would send again what the relay may already have taken.
import type { Logger } from 'pino'

export interface Lease {
  leaseMs: number
  /** Extends the lease by `leaseMs` from now. */
  renew: () => Promise<unknown>
  log: Logger
}

/** Runs `work` while renewing its lease; two renewals in a row may fail (a database blip) before it ends. */
export async function whileLeased<T>(lease: Lease, work: () => Promise<T>): Promise<T> {
  let renewal: Promise<void> | undefined
  const timer = setInterval(() => {
    // A renewal slower than a third of the lease is not stacked with the next.
    renewal ??= lease.renew().then(
      () => void (renewal = undefined),
      (err: unknown) => {
        renewal = undefined
        lease.log.warn({ err }, 'renewing a lease failed')
      },
    )
  }, lease.leaseMs / 3)
  timer.unref()
  try {
    return await work()
  } finally {
    clearInterval(timer)
    await renewal
  }
}
