// Column helpers that hide the one dialect difference migrations have: how an auto-increment id is declared.
import type { CreateTableBuilder, Kysely } from 'kysely'
import { isPostgres } from '../dialect.js'

/** A surrogate key: bigint identity on PostgreSQL, INTEGER PRIMARY KEY AUTOINCREMENT on SQLite (never reused). */
export function withId<T extends string>(db: Kysely<unknown>, table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'> {
  return isPostgres(db)
    ? table.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
}

