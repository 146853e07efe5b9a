// The dispatcher's state as gauges on /metrics: live workers by role, and each queue's depth and the age of its
// oldest due item (services/operations/status.ts), read from the database when scraped. A scrape never fails
// over them: a database that errs or takes longer than READ_WITHIN_MS leaves these gauges out of that scrape
// (the series go absent, which an alert can watch for) and the process's own metrics are still served.
import { Gauge, type Registry } from 'prom-client'
import type { DispatchStatus } from '../services/operations/status.js'

/** Scrapes within this share one read: a flood of them costs the database 7 indexed statements a second. */
const READ_EVERY_MS = 1000
/** Below Prometheus's default scrape timeout (10 s) with room for the rest of the scrape. */
const READ_WITHIN_MS = 2000
const ROLES = ['serve', 'worker'] as const

export function registerStatusGauges(registry: Registry, read: () => Promise<DispatchStatus>): void {
  let last: { at: number; status: Promise<DispatchStatus | undefined> } | undefined
  // The three gauges are collected side by side in one scrape: the first starts the read, the others share it.
  const current = () => {
    const now = performance.now()
    if (!last || now - last.at >= READ_EVERY_MS) last = { at: now, status: withinBound(read()) }
    return last.status
  }
  new Gauge({
    name: 'tidings_workers_live',
    help: 'Dispatching processes whose heartbeat is recent (tidings status), by role',
    labelNames: ['role'],
    registers: [registry],
    async collect() {
      this.reset()
      const status = await current()
      for (const role of status ? ROLES : []) this.set({ role }, status!.workers.filter((w) => w.role === role).length)
    },
  })
  new Gauge({
    name: 'tidings_queue_depth',
    help: 'Items due in each queue, claimed ones included',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      this.reset()
      const status = await current()
      for (const [queue, { depth }] of Object.entries(status?.queues ?? {})) this.set({ queue }, depth)
    },
  })
  new Gauge({
    name: 'tidings_queue_oldest_due_age_seconds',
    help: 'Seconds since the oldest due item of each queue fell due; 0 when nothing is due',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      this.reset()
      const status = await current()
      for (const [queue, { oldestDueAgeSeconds }] of Object.entries(status?.queues ?? {})) this.set({ queue }, oldestDueAgeSeconds ?? 0)
    },
  })
}

/** The status, or undefined when the read fails or outlasts READ_WITHIN_MS (it then ends unheard). */
function withinBound(read: Promise<DispatchStatus>): Promise<DispatchStatus | undefined> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, READ_WITHIN_MS, undefined)
    timer.unref()
  })
  const answered = read.then(
    (status) => status,
    () => undefined,
  )
  return Promise.race([answered, late]).finally(() => clearTimeout(timer))
}
