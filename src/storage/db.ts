// Opens the database named by DATABASE_URL: SQLite (default, WAL) or PostgreSQL, both behind Kysely.
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { finished } from 'node:stream/promises'
import type SQLite from 'better-sqlite3'
import type pg from 'pg'
import type * as PgCopyStreams from 'pg-copy-streams'
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, SqliteDriver, type DatabaseConnection, type DialectAdapter, type Driver, type PostgresPool, type PostgresPoolClient, type SqliteDialectConfig } from 'kysely'
import type { Database } from './tables.js'
import { adapterOf } from './dialect.js'
import { lazyRequire } from '../lib/lazy-require.js'

// A process loads the driver of its own database only (pg alone is ~15 MB of RSS with the undici it loads).
const sqliteDriver = lazyRequire<typeof SQLite>('better-sqlite3')
const pgDriver = lazyRequire<typeof pg>('pg')
const pgCopyStreams = lazyRequire<typeof PgCopyStreams>('pg-copy-streams')

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

/** Bounds on waiting for PostgreSQL, in seconds (TIDINGS_DB_CONNECT_TIMEOUT, TIDINGS_DB_STATEMENT_TIMEOUT). */
export interface DatabaseTimeouts {
  connectSeconds: number
  statementSeconds: number
}

/** `timeouts` applies to PostgreSQL; without it nothing is bounded (tests, `tidings migrate`). */
export function openDatabase(url: string, timeouts?: DatabaseTimeouts): Storage {
  return dialectOf(url) === 'postgres' ? openPostgres(url, timeouts) : openSqlite(url.slice('sqlite:'.length))
}

function openSqlite(path: string): Storage {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const sqlite = new (sqliteDriver())(path)
  sqlite.pragma('journal_mode = WAL')
  // Writers from the CLI (imports, accounts) and the server share the file: wait instead of failing.
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('foreign_keys = ON')
  // 16 MiB of page cache (SQLite's default is 2). A 64 MiB cache, set once for imports, filled up while a campaign
  // sent and held ~30 MiB more RSS, with no gain: a 1,000,000-contact import through the API or the CLI and a
  // campaign's copy of 1,000,000 recipients took the same time with 16 as with 64 (docs/benchmarks.md, "Sending").
  sqlite.pragma('cache_size = -16384')
  const db = new Kysely<Database>({ dialect: new ImmediateTransactionsDialect({ database: withStatementCache(sqlite) }) })
  sqliteHandles.set(adapterOf(db), sqlite)
  return { db, dialect: 'sqlite', close: () => db.destroy() }
}

/**
 * Transactions take SQLite's write lock when they begin (BEGIN IMMEDIATE), not at their first write. The CLI writes
 * to the file while `serve` runs (`tidings import`, `tidings accounts credit`): a transaction that read before that
 * process committed could no longer write after it (SQLITE_BUSY_SNAPSHOT, which busy_timeout does not wait out), and
 * the API answered 500 (test/integration/storage/sqlite-other-writer.test.ts). Begun immediately, it waits for the
 * other writer instead. In this process nothing changes: Kysely runs one transaction at a time on the one connection.
 */
class ImmediateTransactionsDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings)
  }

  override createDriver(): Driver {
    return new (class extends SqliteDriver {
      override async beginTransaction(connection: DatabaseConnection): Promise<void> {
        await connection.executeQuery(CompiledQuery.raw('begin immediate'))
      }
    })(this.settings)
  }
}

// Keyed by adapter, which a database shares with its transactions (storage/dialect.ts).
const sqliteHandles = new WeakMap<DialectAdapter, SQLite.Database>()

/**
 * The better-sqlite3 handle behind a SQLite database opened here, or one of its transactions. SQLite has one
 * connection, so statements run on it while a Kysely transaction of `db` is open belong to that transaction:
 * bulk writes use it to skip building a query per row (repos/contact-upserts.ts). Only storage uses it.
 */
export function sqliteHandleOf(db: Kysely<Database>): SQLite.Database {
  const handle = sqliteHandles.get(adapterOf(db))
  if (!handle) throw new Error('a SQLite database not opened by openDatabase()')
  return handle
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
const parseInt8 = (value: string) => Number(value)
// Asked for each column of every result: one parser for all of them.
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID ? parseInt8 : pgDriver().types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser,
}

/**
 * The client gives up on a query this long after the server's statement_timeout: the server normally ends it
 * first with a clear error; the client's own timer is for a server that cannot answer at all (a network cut).
 */
const QUERY_TIMEOUT_MARGIN_MS = 5000

function openPostgres(url: string, timeouts: DatabaseTimeouts | undefined): Storage {
  const pool = new (pgDriver().Pool)({
    connectionString: url,
    types,
    max: 10,
    ...(timeouts && {
      // Also bounds the wait for a free connection of the pool.
      connectionTimeoutMillis: timeouts.connectSeconds * 1000,
      // statement_timeout and query_timeout given as parameters of the URL (in ms) take precedence over these.
      statement_timeout: timeouts.statementSeconds * 1000,
      query_timeout: timeouts.statementSeconds * 1000 + QUERY_TIMEOUT_MARGIN_MS,
    }),
  })
  // A connection the server ends (shutdown, restart, failover) emits 'error' on its client, idle in the pool or
  // checked out between two queries; unheard, that event ends the process. The next query on the pool reports
  // the outage to its caller (a 503, a paused dispatcher), so these need no handling of their own.
  pool.on('error', ignore)
  pool.on('connect', (client) => client.on('error', ignore))
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: notingDatabaseErrors(pool) }) })
  return { db, dialect: 'postgres', close: () => db.destroy() }
}

function ignore(): void {}

/** Errors raised by the database driver: see fromDatabase. */
const databaseErrors = new WeakSet<object>()

/**
 * Notes `err` as raised by the database driver (connecting to PostgreSQL or querying it) and returns it. Only
 * such errors can mean an outage (isDatabaseUnavailable): a client that drops in the middle of its request
 * body is an ECONNRESET too, and neither a 503 nor an error in the log.
 */
export function fromDatabase<T>(err: T): T {
  if (typeof err === 'object' && err !== null) databaseErrors.add(err)
  return err
}

function rethrowFromDatabase(err: unknown): never {
  throw fromDatabase(err)
}

/**
 * SQL texts that PostgreSQL runs as named prepared statements: parsed and planned once per connection instead of
 * on every call. Planning the list record's statement took 0.4 ms of PostgreSQL's time per request, three times
 * its execution (docs/benchmarks.md, "API"). Only the hot queries of storage/prepared-query.ts are named, so the
 * names stay few: each connection keeps every statement it prepared.
 */
const statementNames = new Map<string, string>()

/** Runs `sql` as a named prepared statement on PostgreSQL from now on. */
export function nameStatement(sql: string): void {
  if (!statementNames.has(sql)) statementNames.set(sql, `tidings_${statementNames.size + 1}`)
}

/** `pool` as Kysely uses it, with every error of connecting and querying noted by fromDatabase. */
function notingDatabaseErrors(pool: pg.Pool): PostgresPool {
  // One wrapper per pooled client: Kysely keeps its connection objects by client.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>()
  return {
    async connect() {
      const client = await pool.connect().catch(rethrowFromDatabase)
      let wrapper = wrappers.get(client)
      if (!wrapper) {
        // Kysely passes a cursor only when the dialect is given one (streaming); this one is not.
        const query = (text: string, parameters: readonly unknown[]) => {
          const data = parameters[0]
          if (data instanceof CopyData) return data.copyOn(client, text).catch(rethrowFromDatabase)
          const name = statementNames.get(text)
          return (name ? client.query({ name, text, values: [...parameters] }) : client.query(text, [...parameters])).catch(rethrowFromDatabase)
        }
        wrapper = { query: query as unknown as PostgresPoolClient['query'], release: () => client.release() }
        wrappers.set(client, wrapper)
      }
      return wrapper
    },
    end: () => pool.end(),
  }
}

/** The rows of a `COPY … FROM STDIN`, as COPY text (storage/copy-text.ts); only copyFrom makes one. */
class CopyData {
  constructor(readonly text: string) {}

  /** Runs `statement` on `client`, sending the rows; answers as a query does, with the rows copied. */
  async copyOn(client: pg.PoolClient, statement: string): Promise<{ command: string; rows: [] }> {
    const stream = client.query(pgCopyStreams().from(statement))
    stream.end(this.text)
    await finished(stream)
    return { command: 'COPY', rows: [] }
  }
}

/**
 * Runs `statement` (`copy … from stdin`) on the connection of `db`, a transaction's when it is one, sending
 * `rows` (COPY text format). PostgreSQL only: the bulk path of repos/contact-upserts.ts. Kysely has no COPY, so
 * the rows travel as the one parameter of a query that the pool wrapper below recognises by its class (no
 * value read from a request can be a CopyData).
 */
export async function copyFrom(db: Kysely<Database>, statement: string, rows: string): Promise<void> {
  await db.executeQuery(CompiledQuery.raw(statement, [new CopyData(rows)]))
}

/** True when the error is a unique-constraint violation on either database. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}

// SQLSTATE classes 08 (connection exception) and 53 (insufficient resources: too many connections, disk full),
// 57P01-57P03 (the server shuts down or is starting) and 57014 (statement_timeout or a cancel).
const UNAVAILABLE_SQLSTATE = /^(08|53)...$|^57P0[123]$|^57014$/
// Errors of the socket: the server refuses, resets or cannot be found.
const UNAVAILABLE_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE'])
// pg's own errors carry no code: a connection ended or timed out, or a pool wait or query_timeout ran out.
const UNAVAILABLE_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/

/**
 * True when the error says PostgreSQL cannot be reached or cannot answer now, not that the query was wrong:
 * the request may succeed later (the API answers 503, the dispatcher pauses). Only an error the driver raised
 * (fromDatabase) counts, found as is or as the cause of another; the same socket codes from anything else (an
 * HTTP client, a webhook receiver) are no outage.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false
  if (databaseErrors.has(err)) return saysUnavailable(err)
  if (isSqliteBusy(err)) return true
  if (err instanceof AggregateError && err.errors.some(isDatabaseUnavailable)) return true
  return isDatabaseUnavailable(err.cause)
}

/**
 * SQLite's file stayed locked by another process (a CLI import) for longer than busy_timeout: the request may succeed
 * later, so a 503 and a paused dispatcher, not a 500. Only better-sqlite3 raises a SqliteError.
 */
function isSqliteBusy(err: Error): boolean {
  const code = (err as { code?: unknown }).code
  return err.name === 'SqliteError' && typeof code === 'string' && code.startsWith('SQLITE_BUSY')
}

/** The outage test of a driver's error: looks through causes and the attempts of an AggregateError (IPv4 and IPv6). */
function saysUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET.has(code))) return true
  if (UNAVAILABLE_MESSAGE.test(err.message)) return true
  if (err instanceof AggregateError && err.errors.some(saysUnavailable)) return true
  return saysUnavailable(err.cause)
}

/** PostgreSQL chose this transaction as a deadlock's victim (SQLSTATE 40P01): it was rolled back whole. */
export function isDeadlockVictim(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '40P01'
}
