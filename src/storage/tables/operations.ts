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

/** A token bucket of a send rate (repos/send-rate-buckets.ts): a channel's (account 0) or an account's on a channel. */
export interface SendRateBucketsTable {
  channel: string
  /** 0: every account together */
  account_id: number
  /** Millionths of a unit (a message, an SMS part) left after the last take */
  micro_tokens: number
  /** Epoch ms of the last take */
  refilled_at: number
  /** Whole units the last take was given */
  granted: number
}
