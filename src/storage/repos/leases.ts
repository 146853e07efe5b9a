// Leases, shared by every queue (jobs, outbox, messages, webhook endpoints): a claimed row carries
// `locked_until`; once that time passes, another worker may claim it, so a worker that died only delays its work.
// A live worker renews the lease of work that may outlast it (dispatcher/lease-keeper.ts), and every write it
// makes afterwards checks the claim is still its own: the claim's token (messages.lease_token), its attempt
// count (jobs, outbox), or the lease's end (webhook endpoints, never renewed: a request ends by its timeout).
import { sql, type RawBuilder } from 'kysely'
import { isPostgres, type QueryingDatabase } from '../dialect.js'

/** The row's lease is free at `now`: never taken, or ended (every leased table names the column `locked_until`). */
export function leaseFree(now: number): RawBuilder<boolean> {
  return sql<boolean>`(locked_until is null or locked_until < ${now})`
}

/**
 * A claim's selection of due rows. PostgreSQL: several workers claim at once, so the rows are locked and rows
 * another claim holds are skipped (FOR UPDATE SKIP LOCKED), never waited for or claimed twice. SQLite has one
 * writer at a time and one process (ARCHITECTURE.md): the claim's single UPDATE is atomic alone.
 */
export function skippingLocked<Q extends { forUpdate(): Q; skipLocked(): Q }>(query: Q, db: QueryingDatabase): Q {
  return isPostgres(db) ? query.forUpdate().skipLocked() : query
}
