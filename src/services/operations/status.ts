// What the operator sees of the dispatcher (`tidings status`, the /metrics gauges): the live dispatching
// processes and, for each queue, how many items are due and how long the oldest of them has waited.
import { QUEUES, queueDepth, type QueueName } from '../../storage/repos/queue-depths.js'
import { liveWorkers, type Worker } from '../../storage/repos/workers.js'
import type { Deps } from '../types.js'

export interface QueueStatus {
  depth: number
  /** Seconds since the oldest due item fell due; null when nothing is due. */
  oldestDueAgeSeconds: number | null
}

export interface DispatchStatus {
  workers: Worker[]
  queues: Record<QueueName, QueueStatus>
}

/** One statement for the workers and one per queue, side by side (PostgreSQL runs them on separate connections). */
export async function readStatus(deps: Pick<Deps, 'db' | 'now'>): Promise<DispatchStatus> {
  const now = deps.now()
  const [workers, ...depths] = await Promise.all([liveWorkers(deps.db, now), ...QUEUES.map((queue) => queueDepth(deps.db, queue, now))])
  const queues = Object.fromEntries(
    QUEUES.map((queue, i) => {
      const { depth, oldestDueAt } = depths[i]!
      return [queue, { depth, oldestDueAgeSeconds: oldestDueAt === null ? null : Math.max(0, now - oldestDueAt) / 1000 }]
    }),
  ) as Record<QueueName, QueueStatus>
  return { workers, queues }
}
