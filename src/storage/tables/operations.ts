// Table interfaces: the processes that run the dispatcher. Conventions: storage/tables.ts.

/** A dispatching process (`serve` without --no-dispatch, or `worker`), kept fresh by its heartbeat. */
export interface WorkersTable {
  /** A random UUID chosen by the process at start. */
  id: string
  hostname: string
  pid: number
  /** 'serve' or 'worker' */
  role: string
  /** The Tidings release it runs (package.json). */
  version: string
  started_at: number
  heartbeat_at: number
  /** The process counts as dead after this: its heartbeat plus three of its intervals (its own setting). */
  live_until: number
}
