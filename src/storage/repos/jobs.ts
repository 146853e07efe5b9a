// Durable background jobs: queued in the request's transaction, claimed with a lease by a job runner, then
// marked done or failed. A runner that dies only delays its jobs: they are claimed again once the lease ends.
import { randomUUID } from 'node:crypto'
import type { Kysely, Selectable } from 'kysely'
import type { Database, JobsTable } from '../tables.js'
import { leaseFree, skippingLocked } from './leases.js'

export const JOB_STATUS = { queued: 'queued', done: 'done', failed: 'failed' } as const

export interface JobRow {
  id: number
  accountId: number | null
  queueId: string
  kind: string
  payload: unknown
  /** Attempts started so far, this one included: also the fencing token of the current lease. */
  attempts: number
  runAt: number
}

/** Queues a job, due now or at `runAt`, and returns its queue_id (a random UUID, the identifier shown to clients). */
export async function enqueueJob(
  db: Kysely<Database>,
  job: { accountId: number | null; kind: string; payload: unknown; now: number; runAt?: number },
): Promise<string> {
  const queueId = randomUUID()
  await db
    .insertInto('jobs')
    .values({
      account_id: job.accountId,
      queue_id: queueId,
      kind: job.kind,
      payload: JSON.stringify(job.payload),
      status: JOB_STATUS.queued,
      run_at: job.runAt ?? job.now,
      created_at: job.now,
      updated_at: job.now,
    })
    .execute()
  return queueId
}

/** Claims up to `limit` due jobs, oldest first: leases them until now + leaseMs and counts the attempt (repos/leases.ts). */
export async function claimDueJobs(
  db: Kysely<Database>,
  claim: { now: number; limit: number; leaseMs: number },
): Promise<JobRow[]> {
  const due = db
    .selectFrom('jobs')
    .select('id')
    .where('status', '=', JOB_STATUS.queued)
    .where('run_at', '<=', claim.now)
    .where(leaseFree(claim.now))
    .orderBy('run_at')
    .orderBy('id')
    .limit(claim.limit)
  const rows = await db
    .updateTable('jobs')
    .set((eb) => ({ locked_until: claim.now + claim.leaseMs, attempts: eb('attempts', '+', 1), updated_at: claim.now }))
    .where('id', 'in', skippingLocked(due, db))
    .returningAll()
    .execute()
  // RETURNING gives no order on either database.
  return rows.map(toJob).sort((a, b) => a.runAt - b.runAt || a.id - b.id)
}

/**
 * Marks a claimed job done. False when the lease was lost (the job was claimed again after it expired):
 * the caller then rolls back, so only the current holder's work counts.
 */
export async function completeJob(db: Kysely<Database>, job: { id: number; attempts: number; now: number }): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ status: JOB_STATUS.done, locked_until: null, last_error: null, updated_at: job.now })
    .where('id', '=', job.id)
    .where('attempts', '=', job.attempts)
    .where('status', '=', JOB_STATUS.queued)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Records a failed attempt: queued again for `retryAt`, or failed for good. False when the lease was lost. */
export async function failJob(
  db: Kysely<Database>,
  job: { id: number; attempts: number; error: string; now: number; outcome: { retryAt: number } | { final: true } },
): Promise<boolean> {
  const next = 'retryAt' in job.outcome ? { status: JOB_STATUS.queued, run_at: job.outcome.retryAt } : { status: JOB_STATUS.failed }
  const result = await db
    .updateTable('jobs')
    .set({ ...next, locked_until: null, last_error: job.error, updated_at: job.now })
    .where('id', '=', job.id)
    .where('attempts', '=', job.attempts)
    .where('status', '=', JOB_STATUS.queued)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

function toJob(row: Selectable<JobsTable>): JobRow {
  return {
    id: Number(row.id),
    accountId: row.account_id === null ? null : Number(row.account_id),
    queueId: row.queue_id,
    kind: row.kind,
    payload: JSON.parse(row.payload) as unknown,
    attempts: Number(row.attempts),
    runAt: Number(row.run_at),
  }
}
