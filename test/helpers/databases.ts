// A fresh, migrated database per test suite, on each dialect: a temporary SQLite file, or a new database
// on the test PostgreSQL server. Every storage and API test runs on both.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { openDatabase, type Dialect, type Storage } from '../../src/storage/db.js'
import { migrateToLatest } from '../../src/storage/migrate.js'
import { startEmbeddedPostgres, type PostgresServer } from './postgres.js'

export const DIALECTS: Dialect[] = ['sqlite', 'postgres']

export interface TestDatabase {
  url: string
  storage: Storage
  drop(): Promise<void>
}

let ownServer: Promise<PostgresServer> | undefined

/** The admin URL of the test PostgreSQL server; starts an embedded one when none is configured. */
async function postgresAdminUrl(): Promise<string> {
  const configured = process.env.TIDINGS_TEST_DATABASE_URL
  if (configured) return configured
  ownServer ??= startEmbeddedPostgres().then((server) => {
    process.once('beforeExit', () => void server.stop())
    return server
  })
  return (await ownServer).url
}

/** `migrate: false` leaves it empty, for a test of the migrations themselves. */
export async function createTestDatabase(dialect: Dialect, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const url = dialect === 'sqlite' ? sqliteUrl() : await createPostgresDatabase()
  const storage = openDatabase(url)
  if (options.migrate !== false) await migrateToLatest(storage.db as never)
  return {
    url,
    storage,
    drop: async () => {
      await storage.close()
      if (dialect === 'sqlite') rmSync(url.slice('sqlite:'.length).replace(/\/[^/]+$/, ''), { recursive: true, force: true })
      else await dropPostgresDatabase(url)
    },
  }
}

function sqliteUrl(): string {
  return `sqlite:${join(mkdtempSync(join(tmpdir(), 'tidings-sqlite-')), 'test.db')}`
}

async function createPostgresDatabase(): Promise<string> {
  const admin = await postgresAdminUrl()
  const name = `tidings_test_${randomBytes(6).toString('hex')}`
  await withAdmin(admin, (client) => client.query(`create database ${name}`))
  const url = new URL(admin)
  url.pathname = `/${name}`
  return url.toString()
}

async function dropPostgresDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1)
  await withAdmin(await postgresAdminUrl(), (client) => client.query(`drop database if exists ${name} with (force)`))
}

/** Runs `work` with a short-lived client connected to `url`. */
export async function withAdmin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}
