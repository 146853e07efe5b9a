// Reads (and, for a reference, writes) a benchmark's database from the benchmark's own process, beside the server:
// one row asked again and again (has a job finished?) without loading the server being measured, counts checked
// after a run, and a statement timed against the database alone. SQLite is opened read-only unless asked (WAL:
// readers never block the server's writer); PostgreSQL through one client.
import Database from 'better-sqlite3'
import pg from 'pg'
import type { BenchDatabase } from './tidings.js'

export interface DbPeek {
  /** The first row of a query with `?` placeholders (turned into $1, $2 … on PostgreSQL). */
  row<T>(query: string, params?: unknown[]): Promise<T | undefined>
  /** Every row of a query. */
  all<T>(query: string, params?: unknown[]): Promise<T[]>
  /** Runs a statement; returns the rows it changed. */
  run(query: string, params?: unknown[]): Promise<number>
  close(): Promise<void>
}

export async function openPeek(database: BenchDatabase, options: { writable?: boolean } = {}): Promise<DbPeek> {
  if (database.dialect === 'sqlite') {
    const db = new Database(database.url.replace(/^sqlite:/, ''), { readonly: !options.writable, fileMustExist: true })
    // As the server opens it (src/storage/db.ts), so that a write costs here what it costs there.
    if (options.writable) {
      db.pragma('busy_timeout = 5000')
      db.pragma('synchronous = NORMAL')
      db.pragma('foreign_keys = ON')
      db.pragma('cache_size = -65536')
    }
    return {
      row: async <T>(query: string, params: unknown[] = []) => db.prepare(query).get(...params) as T | undefined,
      all: async <T>(query: string, params: unknown[] = []) => db.prepare(query).all(...params) as T[],
      run: async (query: string, params: unknown[] = []) => db.prepare(query).run(...params).changes,
      close: async () => {
        db.close()
      },
    }
  }
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  const numbered = (query: string) => {
    let n = 0
    return query.replace(/\?/g, () => `$${++n}`)
  }
  return {
    row: async <T>(query: string, params: unknown[] = []) => (await client.query(numbered(query), params)).rows[0] as T | undefined,
    all: async <T>(query: string, params: unknown[] = []) => (await client.query(numbered(query), params)).rows as T[],
    run: async (query: string, params: unknown[] = []) => (await client.query(numbered(query), params)).rowCount ?? 0,
    close: () => client.end(),
  }
}
