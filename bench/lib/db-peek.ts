// Reads a benchmark's database from the benchmark's own process, beside the server: one row asked again and again
// (has a job finished?) without loading the server being measured, and counts checked after a run. SQLite is
// opened read-only (WAL: readers never block the server's writer); PostgreSQL through one client.
import Database from 'better-sqlite3'
import pg from 'pg'
import type { BenchDatabase } from './tidings.js'

export interface DbPeek {
  /** The first row of a query with `?` placeholders (turned into $1, $2 … on PostgreSQL). */
  row<T>(query: string, params?: unknown[]): Promise<T | undefined>
  close(): Promise<void>
}

export async function openPeek(database: BenchDatabase): Promise<DbPeek> {
  if (database.dialect === 'sqlite') {
    const db = new Database(database.url.replace(/^sqlite:/, ''), { readonly: true, fileMustExist: true })
    return {
      row: async <T>(query: string, params: unknown[] = []) => db.prepare(query).get(...params) as T | undefined,
      close: async () => {
        db.close()
      },
    }
  }
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  return {
    row: async <T>(query: string, params: unknown[] = []) => {
      let n = 0
      const result = await client.query(query.replace(/\?/g, () => `$${++n}`), params)
      return result.rows[0] as T | undefined
    },
    close: () => client.end(),
  }
}
