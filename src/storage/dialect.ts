// Which database a Kysely instance talks to: the one place storage asks. Only code under src/storage/ asks it;
// services and the dispatcher never pass a dialect down. A transaction shares the adapter of the instance it
// was opened on (Kysely builds one adapter per instance), so the answer is the same inside a transaction.
import { PostgresAdapter, type DialectAdapter } from 'kysely'

/** Any Kysely instance or transaction, whatever its tables: only its executor is read. */
export interface QueryingDatabase {
  getExecutor(): { readonly adapter: DialectAdapter }
}

export function isPostgres(db: QueryingDatabase): boolean {
  return adapterOf(db) instanceof PostgresAdapter
}

/** The adapter shared by `db` and every transaction opened on it: a key for what belongs to one database. */
export function adapterOf(db: QueryingDatabase): DialectAdapter {
  return db.getExecutor().adapter
}
