// Periodic clean-ups that every process's timer starts, run by one process at a time and once per period
// across all of them (docs/decisions/0005-once-at-a-time.md). PostgreSQL: the run's transaction holds an
// advisory lock (pg_try_advisory_xact_lock, released by the commit or by a dead connection) and a process that
// does not get it skips the round; the time of the last run is kept in `settings`, read under the lock, so a
// process whose timer fires just after another's run skips it too. SQLite: one process (ARCHITECTURE.md), its
// one writer at a time already makes the run alone; the shared time works the same.
import { sql, type Kysely } from 'kysely'
import type { Database } from '../tables.js'
import { isPostgres } from '../dialect.js'
import { findSetting, writeSetting } from './settings.js'

/** Advisory lock keys are (namespace, key) pairs: the namespace keeps ours apart from other users of the database. */
const NAMESPACE = 0x74696469 // 'tidi'

/** The clean-ups, each with its own lock key (never reuse a number) and the settings key of its last run. */
export const CLEAN_UPS = {
  webhookDeliveries: { lockKey: 1, name: 'webhook-deliveries' },
  expiredTokens: { lockKey: 2, name: 'expired-tokens' },
  unmatchedSmsReceipts: { lockKey: 3, name: 'unmatched-sms-receipts' },
} as const

export type CleanUp = (typeof CLEAN_UPS)[keyof typeof CLEAN_UPS]

/**
 * Runs `work` unless another process is running this clean-up or ran it less than `periodMs` ago; returns its
 * result, or undefined when skipped. `work` runs in the transaction that holds the lock and must use `tx` only.
 */
export async function runCleanUp<T>(
  db: Kysely<Database>,
  cleanUp: CleanUp,
  when: { now: number; periodMs: number },
  work: (tx: Kysely<Database>) => Promise<T>,
): Promise<T | undefined> {
  const ranKey = `clean-up.${cleanUp.name}.ran-at`
  return db.transaction().execute(async (tx) => {
    if (isPostgres(tx)) {
      const { rows } = await sql<{ held: boolean }>`select pg_try_advisory_xact_lock(${NAMESPACE}::int, ${cleanUp.lockKey}::int) as held`.execute(tx)
      if (!rows[0]?.held) return undefined
    }
    const ranAt = Number((await findSetting(tx, ranKey)) ?? Number.NEGATIVE_INFINITY)
    // A clock moved back (ranAt in the future) runs it rather than skipping it until the clock catches up.
    if (when.now - ranAt < when.periodMs && ranAt <= when.now) return undefined
    const result = await work(tx)
    await writeSetting(tx, { key: ranKey, value: String(when.now), now: when.now })
    return result
  })
}
