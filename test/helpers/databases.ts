// A fresh, migrated database per test suite, on each dialect: a temporary SQLite file, or a new database
// on the test PostgreSQL server. Every storage and API test runs on both.
// test/run.ts migrates one template database of each dialect per run (createTemplates) and every suite's database
// is a copy of it: on PostgreSQL, CREATE DATABASE … TEMPLATE (~0.2 s, against 1.1-1.5 s and ~0.25 s of CPU to run
// the 19 migrations on the 2-core machine); on SQLite, a copy of the file. Without test/run.ts (a file run with
// `node --test`), each database is migrated as before.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
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

/** Where test/run.ts tells the test files about its migrated templates (createTemplates). */
const TEMPLATE_ENV = { sqlite: 'TIDINGS_TEST_SQLITE_TEMPLATE', postgres: 'TIDINGS_TEST_POSTGRES_TEMPLATE' } as const

/** `migrate: false` leaves it empty, for a test of the migrations themselves. */
export async function createTestDatabase(dialect: Dialect, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const migrate = options.migrate !== false
  const template = migrate ? process.env[TEMPLATE_ENV[dialect]] : undefined
  const url = dialect === 'sqlite' ? sqliteUrl(template) : await createPostgresDatabase(template)
  const storage = openDatabase(url)
  if (migrate && !template) await migrateToLatest(storage.db as never)
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

/** Migrated templates of both dialects, for the whole run; their variables go into the test files' environment. */
export async function createTemplates(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const sqlite = await createTestDatabase('sqlite')
  const postgres = await createTestDatabase('postgres')
  // Closed, so that the SQLite file holds everything (no -wal file) and nobody is connected to the PostgreSQL
  // template: CREATE DATABASE … TEMPLATE refuses a template in use.
  await sqlite.storage.close()
  await postgres.storage.close()
  return {
    env: { [TEMPLATE_ENV.sqlite]: sqlite.url.slice('sqlite:'.length), [TEMPLATE_ENV.postgres]: new URL(postgres.url).pathname.slice(1) },
    drop: async () => {
      await sqlite.drop()
      await postgres.drop()
    },
  }
}

function sqliteUrl(templateFile?: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'tidings-sqlite-')), 'test.db')
  if (templateFile) copyFileSync(templateFile, file)
  return `sqlite:${file}`
}

async function createPostgresDatabase(template?: string): Promise<string> {
  const admin = await postgresAdminUrl()
  const name = `tidings_test_${randomBytes(6).toString('hex')}`
  await withAdmin(admin, (client) => client.query(`create database ${name}${template ? ` template ${template}` : ''}`))
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
