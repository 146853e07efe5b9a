// The job runner: polls the jobs table, runs each due job's handler in a transaction with marking it done,
// and retries failures with exponential backoff. All state is in the database, so a restart loses nothing.
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import * as jobsRepo from '../storage/repos/jobs.js'
import type { Database } from '../storage/tables.js'
import { coerceError } from '../services/errors.js'
import { Poller } from './poller.js'
import type { Deps } from '../services/types.js'

/** Applies one job; runs inside the transaction that completes the job and must use `tx` for every query. */
export type JobHandler = (deps: Deps, payload: unknown, tx: Kysely<Database>) => Promise<void>

export interface JobRunnerOptions {
  /** Pause between polls when no job was due (ms). */
  pollMs?: number
  /** Jobs claimed per round. */
  batchSize?: number
  /** How long a claimed job stays reserved for its runner (ms): after it, another runner may take it. */
  leaseMs?: number
  /** Attempts before a job is marked failed for good. */
  maxAttempts?: number
}

const RETRY_BASE_MS = 1000
const RETRY_CAP_MS = 10 * 60_000
// last_error is for an operator reading the row, not a place for whole stack traces.
const MAX_ERROR_LENGTH = 2000

/** When attempt `attempts` (1 = the first) having failed, the next one may run: 1 s, 2 s, 4 s, … at most 10 min. */
export function nextAttemptAt(attempts: number, now: number): number {
  return now + Math.min(RETRY_BASE_MS * 2 ** (Math.max(attempts, 1) - 1), RETRY_CAP_MS)
}

/** The completion found the job claimed again by another runner after this one's lease expired. */
class LeaseLostError extends Error {}

export class JobRunner {
  private readonly log: Logger
  private readonly batchSize: number
  private readonly leaseMs: number
  private readonly maxAttempts: number
  private readonly poller: Poller

  constructor(
    private readonly deps: Deps,
    private readonly handlers: Readonly<Record<string, JobHandler>>,
    options: JobRunnerOptions = {},
  ) {
    this.log = deps.log.child({ component: 'jobs' })
    this.batchSize = options.batchSize ?? 50
    this.leaseMs = options.leaseMs ?? 60_000
    this.maxAttempts = options.maxAttempts ?? 10
    // A round that ran a job polls again at once: a job may queue the next step of its work (a campaign's copy
    // queues its next batch), which would otherwise wait out the pause (1,000,000 recipients: 200 batches,
    // 50 s of pauses against 5 s of work on SQLite).
    this.poller = new Poller(() => this.runDue(), { pollMs: options.pollMs ?? 250, full: 1, log: this.log, what: 'claiming or recording jobs' })
  }

  /** Starts polling; timers are unref'd, so the runner alone keeps no process alive. */
  start(): void {
    this.poller.start()
  }

  /** Stops polling and waits for the round in flight to finish. */
  stop(): Promise<void> {
    return this.poller.stop()
  }

  /** Claims the due jobs and runs them one by one; returns how many ran. */
  async runDue(): Promise<number> {
    const jobs = await jobsRepo.claimDueJobs(this.deps.db, {
      now: this.deps.now(),
      limit: this.batchSize,
      leaseMs: this.leaseMs,
    })
    for (const job of jobs) await this.run(job)
    return jobs.length
  }

  private async run(job: jobsRepo.JobRow): Promise<void> {
    const handler = this.handlers[job.kind]
    try {
      // Every allowed attempt was started but none recorded an outcome: its runner died each time.
      if (job.attempts > this.maxAttempts) throw new Error('the runner stopped during every attempt')
      if (!handler) throw new Error(`no handler for job kind "${job.kind}"`)
      await this.deps.db.transaction().execute(async (tx) => {
        await handler(this.deps, job.payload, tx)
        if (!(await jobsRepo.completeJob(tx, { id: job.id, attempts: job.attempts, now: this.deps.now() }))) throw new LeaseLostError()
      })
    } catch (thrown) {
      if (thrown instanceof LeaseLostError) {
        this.log.warn({ jobId: job.id, kind: job.kind }, 'job lease expired before it finished; its new holder runs it')
        return
      }
      await this.recordFailure(job, coerceError(thrown))
    }
  }

  private async recordFailure(job: jobsRepo.JobRow, err: Error): Promise<void> {
    const now = this.deps.now()
    const final = job.attempts >= this.maxAttempts
    await jobsRepo.failJob(this.deps.db, {
      id: job.id,
      attempts: job.attempts,
      error: err.message.slice(0, MAX_ERROR_LENGTH),
      now,
      outcome: final ? { final: true } : { retryAt: nextAttemptAt(job.attempts, now) },
    })
    const scope = { jobId: job.id, queueId: job.queueId, kind: job.kind, attempts: job.attempts, err }
    if (final) this.log.error(scope, 'job failed for good')
    else this.log.warn(scope, 'job failed; will retry')
  }
}
