// Vonage's status callbacks, one HTTP request per report, stored a batch at a time. Each in a transaction of its own
// was most of a Viber campaign's cost: a callback (a commit, two statements, their queries built) took more of the
// server's time than the send it reports on (docs/benchmarks.md, "Viber campaigns"). Delivery reports that come
// while a batch is being stored wait and are stored together next (up to MAX_BATCH, one transaction); each
// callback is answered once its batch is committed, so none is acknowledged before it is stored. Failure reports,
// which may queue an SMS instead, keep a transaction each (recordViberDeliveries says why).
import type { ViberReport } from '../../delivery/viber/channel.js'
import type { Deps } from '../types.js'
import { isDeliveryReport, recordViberDeliveries, recordViberReport, type ViberDeliveryReport } from './reports.js'

/** The most reports of one transaction: one `id in (…)` of the repos' chunks. */
const MAX_BATCH = 500

interface Waiting {
  report: ViberDeliveryReport
  resolve: (known: boolean) => void
  reject: (err: unknown) => void
}

/** Records one report; resolves false when no Viber message has its id, rejects when it could not be stored. */
export type ViberReportRecorder = (report: ViberReport) => Promise<boolean>

export function viberReportRecorder(deps: Deps): ViberReportRecorder {
  const waiting: Waiting[] = []
  let storing = false

  /** Stores what is waiting, batch after batch, until nothing is. */
  const store = async () => {
    storing = true
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
    storing = false
  }

  return (report) => {
    if (!isDeliveryReport(report)) return recordViberReport(deps, report)
    return new Promise((resolve, reject) => {
      waiting.push({ report, resolve, reject })
      // One batch at a time: on PostgreSQL too, where 2 or 4 at once (their commits' WAL flushes shared) answered
      // 2-3 ms sooner at the median but sent 10 % fewer messages a second (3 runs each, 30,000 numbers).
      // setImmediate: the callbacks read in this turn of the event loop go in the first batch together.
      if (!storing && waiting.length === 1) setImmediate(() => void store())
    })
  }
}
