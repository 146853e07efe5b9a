// A dispatching process's row in the registry of workers (storage/repos/workers.ts): written at start and then
// every heartbeat, deleted on a clean stop. The row says the process is alive for three heartbeats: one missed
// beat (a long garbage collection, a slow database) does not make it dead, and a process killed with SIGKILL
// leaves the live list within 3 × TIDINGS_HEARTBEAT (15 s by default). The beats run on a Poller, so a database
// outage pauses them with the rest of the dispatcher (one warning, dispatcher/outage.ts).
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Logger } from 'pino'
import * as workers from '../storage/repos/workers.js'
import type { Deps } from '../services/types.js'
import { RELEASE } from '../lib/release.js'
import { Poller } from './poller.js'

/** Heartbeats a process may miss before it counts as dead. */
const MISSED_BEATS = 3

export class WorkerPresence {
  readonly worker: workers.WorkerInfo
  private readonly log: Logger
  private readonly heartbeatMs: number
  private readonly poller: Poller
  private registered = false

  constructor(
    private readonly deps: Deps,
    role: workers.WorkerRole,
  ) {
    this.log = deps.log.child({ component: 'workers' })
    this.heartbeatMs = deps.config.heartbeatSeconds * 1000
    this.worker = { id: randomUUID(), hostname: hostname(), pid: process.pid, role, version: RELEASE, startedAt: deps.now() }
    this.poller = new Poller(() => this.beat(), { pollMs: this.heartbeatMs, full: Infinity, log: this.log, what: 'recording the heartbeat' })
  }

  /** Registers the process (its first beat runs at once) and keeps it alive; the timers are unref'd. */
  start(): void {
    this.poller.start()
  }

  /** Stops the beats and deletes the row; a database that is away leaves the row to expire instead. */
  async stop(): Promise<void> {
    await this.poller.stop()
    await workers.deregisterWorker(this.deps.db, this.worker.id).catch((err: unknown) => this.log.warn({ err }, 'removing this worker from the registry failed; it expires by itself'))
  }

  private async beat(): Promise<number> {
    const now = this.deps.now()
    await workers.recordHeartbeat(this.deps.db, this.worker, { now, liveUntil: now + MISSED_BEATS * this.heartbeatMs })
    if (!this.registered) {
      // Rows of processes that died are forgotten by the next one to start: a handful at most.
      const forgotten = await workers.forgetDeadWorkers(this.deps.db, now)
      this.registered = true
      this.log.info({ workerId: this.worker.id, role: this.worker.role, forgotten }, 'registered as a live worker')
    }
    return 0
  }
}
