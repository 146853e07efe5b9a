// Vonage's status callbacks, one HTTP request per report, stored a batch at a time. Each in a transaction of its own
// was most of a Viber campaign's cost: a callback (a commit, two statements, their queries built) took more of the
// server's time than the send it reports on (docs/benchmarks.md, "Viber campaigns"). Delivery reports that come
// while a batch is being stored wait and are stored together next (up to MAX_BATCH, one transaction); each
// callback is answered once its batch is committed, so none is acknowledged before it is stored. Failure reports,
// which may queue an SMS instead, keep a transaction each (recordViberDeliveries says why).
import type { ViberReport } from '../../delivery/viber/channel.js'
import { isPostgres } from '../../storage/dialect.js'
import type { Deps } from '../types.js'
import { isDeliveryReport, recordViberDeliveries, recordViberReport, type ViberDeliveryReport } from './reports.js'

/** The most reports of one transaction: one `id in (…)` of the repos' chunks. */
const MAX_BATCH = 500
/**
 * Batches being stored at once on PostgreSQL, whose commit waits for the WAL to be flushed to disk (24 ms a batch
 * on average in the benchmark, on 2 busy cores): the next batches are stored meanwhile, and their commits flushed
 * together. They cannot deadlock: none waits for a lock (recordViberDeliveries). SQLite has one connection, on
 * which a second batch would only wait, smaller.
 */
const POSTGRES_BATCHES_IN_FLIGHT = 4

interface Waiting {
  report: ViberDeliveryReport
  resolve: (known: boolean) => void
  reject: (err: unknown) => void
}

/** Records one report; resolves false when no Viber message has its id, rejects when it could not be stored. */
export type ViberReportRecorder = (report: ViberReport) => Promise<boolean>

export function viberReportRecorder(deps: Deps): ViberReportRecorder {
  const parallel = isPostgres(deps.db) ? POSTGRES_BATCHES_IN_FLIGHT : 1
  const waiting: Waiting[] = []
  let storing = 0
  let scheduled = false

  /** Stores what is waiting, batch after batch, until nothing is. */
  const store = async () => {
    storing++
    while (waiting.length > 0) {
      const batch = waiting.splice(0, MAX_BATCH)
      try {
        const stored = await recordViberDeliveries(deps, batch.map((w) => w.report))
        for (const w of batch) {
          if (stored.has(w.report.messageId)) w.resolve(true)
          // Not waited for here: one held by a recording would hold up the batches behind it.
          else recordViberReport(deps, w.report).then(w.resolve, w.reject)
        }
      } catch (err) {
        for (const w of batch) w.reject(err)
      }
    }
    storing--
  }

  // setImmediate: the callbacks read in this turn of the event loop go in one batch together.
  const schedule = () => {
    if (scheduled || storing >= parallel) return
    scheduled = true
    setImmediate(() => {
      scheduled = false
      if (waiting.length > 0 && storing < parallel) void store()
    })
  }

  return (report) => {
    if (!isDeliveryReport(report)) return recordViberReport(deps, report)
    return new Promise((resolve, reject) => {
      waiting.push({ report, resolve, reject })
      schedule()
    })
  }
}
