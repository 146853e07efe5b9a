// Opens the database named by DATABASE_URL: SQLite (default, WAL) or PostgreSQL, both behind Kysely.
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import pg from 'pg'
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely'
import type { Database } from './tables.js'

export type Dialect = 'sqlite' | 'postgres'

export interface Storage {
  db: Kysely<Database>
  dialect: Dialect
  close(): Promise<void>
}

export function dialectOf(url: string): Dialect {
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres'
  if (url.startsWith('sqlite:')) return 'sqlite'
  throw new Error(`DATABASE_URL must start with sqlite: or postgres:// (got ${url.split(':')[0]}:)`)
}

export function openDatabase(url: string): Storage {
  return dialectOf(url) === 'postgres' ? openPostgres(url) : openSqlite(url.slice('sqlite:'.length))
}

function openSqlite(path: string): Storage {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const sqlite = new SQLite(path)
  sqlite.pragma('journal_mode = WAL')
  // Writers from the CLI (imports, accounts) and the server share the file: wait instead of failing.
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('cache_size = -65536')
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) })
  sqliteHandles.set(db, sqlite)
  return { db, dialect: 'sqlite', close: () => db.destroy() }
}

const sqliteHandles = new WeakMap<Kysely<Database>, SQLite.Database>()

/**
 * The better-sqlite3 handle behind a SQLite database opened here. SQLite has one connection, so statements run
 * on it while a Kysely transaction of `db` is open belong to that transaction: bulk writes use it to skip
 * building a query per row (repos/contacts.ts).
 */
export function sqliteHandleOf(db: Kysely<Database>): SQLite.Database | undefined {
  return sqliteHandles.get(db)
}

/**
 * Kysely's SQLite driver prepares every query anew; preparing was 27% of the CPU of a GET /addressbooks/{id}
 * (docs/benchmarks.md). Statements are reused by SQL text; SQLite re-prepares them itself after a schema change.
 */
function withStatementCache(sqlite: SQLite.Database) {
  const statements = new Map<string, SQLite.Statement>()
  return {
    close: () => sqlite.close(),
    prepare: (text: string) => {
      let statement = statements.get(text)
      if (!statement) {
        statement = sqlite.prepare(text)
        // Queries with `in (?, ?, …)` vary in text: bound the cache so it cannot grow without limit.
        if (statements.size < 2000) statements.set(text, statement)
      }
      return statement
    },
  }
}

// int8 (count(*), bigint ids, epoch-ms times) arrives as a string by default; our values stay below 2^53.
const INT8_OID = 20
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
}

function openPostgres(url: string): Storage {
  const pool = new pg.Pool({ connectionString: url, types, max: 10 })
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return { db, dialect: 'postgres', close: () => db.destroy() }
}

/** True when the error is a unique-constraint violation on either database. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}

/** PostgreSQL chose this transaction as a deadlock's victim (SQLSTATE 40P01): it was rolled back whole. */
export function isDeadlockVictim(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '40P01'
}
