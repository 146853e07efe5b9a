// The registry of dispatching processes: a row per process, written by its heartbeat, deleted on a clean stop;
// a row past its live_until belongs to a process that died and is left out of every list, then deleted by the
// next process that registers.
import type { Kysely, Selectable } from 'kysely'
import type { Database, WorkersTable } from '../tables.js'

export type WorkerRole = 'serve' | 'worker'

export interface WorkerInfo {
  id: string
  hostname: string
  pid: number
  role: WorkerRole
  version: string
  startedAt: number
}

export interface Worker extends WorkerInfo {
  heartbeatAt: number
  liveUntil: number
}

/**
 * Writes the process's row as alive at `now` until `liveUntil`. An upsert, so the first beat registers the
 * process and a later one brings it back if its row was deleted while it stalled past live_until.
 */
export async function recordHeartbeat(db: Kysely<Database>, worker: WorkerInfo, beat: { now: number; liveUntil: number }): Promise<void> {
  await db
    .insertInto('workers')
    .values({
      id: worker.id,
      hostname: worker.hostname,
      pid: worker.pid,
      role: worker.role,
      version: worker.version,
      started_at: worker.startedAt,
      heartbeat_at: beat.now,
      live_until: beat.liveUntil,
    })
    .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat_at: beat.now, live_until: beat.liveUntil }))
    .execute()
}

/** Deletes the rows of processes that died (their live_until passed before `now`); returns how many. */
export async function forgetDeadWorkers(db: Kysely<Database>, now: number): Promise<number> {
  const result = await db.deleteFrom('workers').where('live_until', '<', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** A clean stop: the process is gone at once, not after its live_until. */
export async function deregisterWorker(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('workers').where('id', '=', id).execute()
}

/** The processes alive at `now`, oldest first. */
export async function liveWorkers(db: Kysely<Database>, now: number): Promise<Worker[]> {
  const rows = await db.selectFrom('workers').selectAll().where('live_until', '>=', now).orderBy('started_at').orderBy('id').execute()
  return rows.map(toWorker)
}

function toWorker(row: Selectable<WorkersTable>): Worker {
  return {
    id: row.id,
    hostname: row.hostname,
    pid: Number(row.pid),
    role: row.role as WorkerRole,
    version: row.version,
    startedAt: Number(row.started_at),
    heartbeatAt: Number(row.heartbeat_at),
    liveUntil: Number(row.live_until),
  }
}
