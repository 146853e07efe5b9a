// How the dispatcher's loops wait out a database outage (PostgreSQL stopped, restarting, unreachable): one
// warning when it starts, the next round after 1 s, 2 s, 4 s … at most 10 s (a connection attempt each, not a
// loop of errors), and one line when the database answers again. The process never exits over it.
import type { Logger } from 'pino'
import { isDatabaseUnavailable } from '../storage/db.js'

const FIRST_PAUSE_MS = 1000
// Also the longest the dispatcher stays idle after the database is back.
const MAX_PAUSE_MS = 10_000

export class OutagePacing {
  private failedRounds = 0

  constructor(private readonly log: Logger) {}

  /** After a failed round: the pause before the next one (ms), or undefined when the failure is not an outage. */
  pauseAfter(err: unknown): number | undefined {
    if (!isDatabaseUnavailable(err)) return undefined
    if (this.failedRounds === 0) this.log.warn({ err }, 'database unavailable: pausing until it answers')
    this.failedRounds += 1
    return Math.min(FIRST_PAUSE_MS * 2 ** (this.failedRounds - 1), MAX_PAUSE_MS)
  }

  /** After a round that reached the database. */
  succeeded(): void {
    if (this.failedRounds === 0) return
    this.log.info({ failedRounds: this.failedRounds }, 'database answers again: resuming')
    this.failedRounds = 0
  }
}
