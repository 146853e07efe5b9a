// `npm run bench:import`: BENCH_CONTACTS (1,000,000) generated contacts with three variables (name string, age
// number, signup date) into one list, on SQLite and on PostgreSQL, three ways:
//
// 1. api — POST /addressbooks/{id}/emails with BENCH_IMPORT_BATCH (10,000) contacts per request and
//    BENCH_IMPORT_CONCURRENCY (2) requests in flight (the bodies made before the clock starts), against
//    `node bin/tidings.js serve` in a child process;
//    the server's peak RSS is read from /proc/<pid>/status (VmHWM) at the end.
// 2. cli — `node bin/tidings.js import` of the same contacts as a CSV file (generated once in a temporary
//    directory), into a fresh database of the same kind; its peak RSS comes from `/usr/bin/time -v` when that
//    exists, else from polling VmHWM.
// 3. raw — the floor the database sets: the same rows (generated before the clock starts) inserted by this
//    process straight into a fresh, migrated database (same tables and indexes), no HTTP, no validation, no
//    upsert: on SQLite one prepared statement in one transaction through better-sqlite3; on PostgreSQL one
//    `COPY contacts … FROM STDIN` of every row in one transaction (the COPY text made before the clock starts).
//
// Environment: BENCH_CONTACTS, BENCH_IMPORT_BATCH, BENCH_IMPORT_CONCURRENCY, BENCH_TARGETS (sqlite,postgres),
// BENCH_IMPORT_WAYS (api,cli,raw), BENCH_PROFILE=1 (servers and the CLI under --cpu-prof, profiles in
// bench/results/profiles/), BENCH_SKIP_BUILD=1, TIDINGS_TEST_DATABASE_URL (else an embedded PostgreSQL).
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { copyRow } from '../src/storage/copy-text.js'
import { fmt, machine, positiveNumber, ROOT, targetsFromEnv, writeResults } from './lib/env.js'
import { buildUnlessSkipped, peakRssMiB, PROFILE, profileArgs } from './lib/processes.js'
import { addEmailsBodies, benchContact, postBodies, writeContactsCsv } from './lib/contacts.js'
import {
  authorization,
  createAccount,
  createBenchDatabase,
  createList,
  expectListSize,
  postgresSource,
  startServer,
  stopEmbeddedPostgres,
  type BenchDatabase,
  type Dialect,
} from './lib/tidings.js'

const CONTACTS = positiveNumber('BENCH_CONTACTS', 1_000_000)
const BATCH = positiveNumber('BENCH_IMPORT_BATCH', 10_000)
/** Requests in flight. Measured on 1M contacts (bench/README.md): 2 is best on both databases; 1 leaves the
 * server idle while a body travels, 4 only queues more bodies in its memory. */
const CONCURRENCY = positiveNumber('BENCH_IMPORT_CONCURRENCY', 2)
const TARGETS = targetsFromEnv<Dialect>(['sqlite', 'postgres'])
type Way = 'api' | 'cli' | 'raw'
const WAYS = (process.env.BENCH_IMPORT_WAYS || 'api,cli,raw').split(',').map((w) => w.trim()) as Way[]
for (const w of WAYS) if (!['api', 'cli', 'raw'].includes(w)) throw new Error(`unknown BENCH_IMPORT_WAYS entry: ${w}`)
/** Issue 19: the way each database is judged by, and its least share of the raw speed measured in the same run. */
const GOALS: { dialect: Dialect; way: Way; ofRaw: number }[] = [
  { dialect: 'sqlite', way: 'api', ofRaw: 0.5 },
  { dialect: 'postgres', way: 'cli', ofRaw: 0.9 },
]

interface Measurement {
  dialect: Dialect
  way: Way
  contacts: number
  seconds: number
  contactsPerSecond: number
  /** Peak RSS of the process doing the import: the server (api), the CLI (cli); null for raw. */
  peakRssMiB: number | null
  details: Record<string, unknown>
}

async function main(): Promise<void> {
  buildUnlessSkipped()
  console.log(`${fmt(CONTACTS, 0)} contacts, ${fmt(BATCH, 0)} per request, ${CONCURRENCY} in flight; ${TARGETS.join(', ')}; ${WAYS.join(', ')}`)
  const dir = mkdtempSync(join(tmpdir(), 'tidings-bench-import-'))
  const measured: Measurement[] = []
  try {
    let csv: string | undefined
    if (WAYS.includes('cli')) {
      csv = join(dir, 'contacts.csv')
      const started = performance.now()
      await writeContactsCsv(csv, CONTACTS)
      console.log(`CSV written: ${fmt(statSync(csv).size / 2 ** 20, 1)} MiB in ${fmt((performance.now() - started) / 1000, 1)} s`)
    }
    for (const dialect of TARGETS) {
      if (WAYS.includes('api')) measured.push(await importThroughApi(dialect))
      if (csv) measured.push(await importThroughCli(dialect, csv, dir))
      if (WAYS.includes('raw')) measured.push(await insertRaw(dialect))
    }
  } finally {
    await stopEmbeddedPostgres()
    rmSync(dir, { recursive: true, force: true })
  }
  report(measured)
}

// ---- 1. through the API ---------------------------------------------------------------------------------

async function importThroughApi(dialect: Dialect): Promise<Measurement> {
  const database = await createBenchDatabase(dialect)
  const server = await startServer(database, `import-api-${dialect}`)
  try {
    const headers = await authorization(server.base, createAccount(database))
    const list = await createList(server.base, headers, 'import')
    const rssBefore = peakRssMiB(server.child.process.pid!)
    // Made before the clock starts, as the raw rows are: on 2 cores, making them meanwhile took CPU from the server.
    const bodies = addEmailsBodies({ from: 0, to: CONTACTS, batch: BATCH })
    console.log(`${dialect} api: importing …`)
    const pid = server.child.process.pid!
    const cpuBefore = { all: cpuSeconds(pid), main: cpuSeconds(pid, pid) }
    const started = performance.now()
    const requests = await postBodies(server.base, headers, list, bodies, CONCURRENCY)
    const seconds = (performance.now() - started) / 1000
    const cpu = { all: cpuSeconds(pid) - cpuBefore.all, main: cpuSeconds(pid, pid) - cpuBefore.main }
    const peak = peakRssMiB(pid)
    await expectListSize(server.base, headers, list, CONTACTS)
    console.log(`  server CPU ${fmt(cpu.all, 1)} s (${fmt((cpu.all * 1e6) / CONTACTS, 1)} µs a contact), its main thread ${fmt(cpu.main, 1)} s (${fmt((cpu.main * 1e6) / CONTACTS, 1)} µs)`)
    return measurement(dialect, 'api', seconds, peak, { requests, batch: BATCH, concurrency: CONCURRENCY, serverRssBeforeMiB: rssBefore, serverCpuSeconds: cpu.all, mainThreadCpuSeconds: cpu.main })
  } finally {
    await server.stop()
    await database.drop()
  }
}

/**
 * CPU seconds (user + system) of a process, all its threads, or of one thread (`tid`; the main thread's is the
 * pid): what each costs whatever else the machine runs, where the wall clock counts waiting for a core too.
 */
function cpuSeconds(pid: number, tid?: number): number {
  const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime in clock ticks of 1/100 s
}

// ---- 2. through the CLI importer ------------------------------------------------------------------------

async function importThroughCli(dialect: Dialect, csv: string, dir: string): Promise<Measurement> {
  const database = await createBenchDatabase(dialect)
  try {
    const account = createAccount(database)
    // A list is made through the API, as an operator would; the server is stopped before the import.
    const server = await startServer(database, `import-cli-setup-${dialect}`)
    let list: number
    try {
      list = await createList(server.base, await authorization(server.base, account), 'import')
    } finally {
      await server.stop()
    }
    console.log(`${dialect} cli: importing …`)
    const timeFile = join(dir, `time-${dialect}.txt`)
    const useTime = existsSync('/usr/bin/time')
    const node = ['node', ...profileArgs(`import-cli-${dialect}`), 'bin/tidings.js', 'import', '--account', String(account.id), '--list', String(list), csv]
    const command = useTime ? ['/usr/bin/time', '-v', '-o', timeFile, ...node] : node
    const started = performance.now()
    const { stdout, polledPeakMiB } = await runMeasured(command, database.env)
    const seconds = (performance.now() - started) / 1000
    const summary = JSON.parse(stdout) as { added: number; invalid: number; seconds: number }
    if (summary.added !== CONTACTS || summary.invalid !== 0) throw new Error(`import summary: ${stdout}`)
    const timeReport = useTime ? readFileSync(timeFile, 'utf8') : ''
    const timed = /Maximum resident set size \(kbytes\): (\d+)/.exec(timeReport)
    const peak = timed ? Number(timed[1]) / 1024 : polledPeakMiB
    const cpu = ['User', 'System'].reduce((sum, kind) => sum + Number(new RegExp(`${kind} time \\(seconds\\): ([\\d.]+)`).exec(timeReport)?.[1] ?? NaN), 0)
    if (useTime) console.log(`  CLI CPU ${fmt(cpu, 1)} s (${fmt((cpu * 1e6) / CONTACTS, 1)} µs a contact, start-up included)`)
    return measurement(dialect, 'cli', seconds, peak, {
      importerSeconds: summary.seconds,
      peakRssSource: timed ? '/usr/bin/time -v' : 'VmHWM polled every 100 ms',
      cpuSeconds: useTime ? cpu : null,
      csvMiB: statSync(csv).size / 2 ** 20,
    })
  } finally {
    await database.drop()
  }
}

/** Runs a command to its end, polling the peak RSS of the process it started (the importer when not under /usr/bin/time). */
function runMeasured(command: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; polledPeakMiB: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let peak: number | null = null
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)))
    const poll = setInterval(() => {
      const now = peakRssMiB(child.pid!)
      if (now !== null) peak = Math.max(peak ?? 0, now)
    }, 100)
    child.on('error', reject)
    child.on('exit', (code) => {
      clearInterval(poll)
      if (code === 0) resolve({ stdout, polledPeakMiB: peak })
      else reject(new Error(`${command.join(' ')} failed (${code}):\n${stderr}`))
    })
  })
}

// ---- 3. raw inserts, the database's floor ---------------------------------------------------------------

async function insertRaw(dialect: Dialect): Promise<Measurement> {
  const database = await createBenchDatabase(dialect)
  try {
    const account = createAccount(database)
    // Generated before the clock starts: this measures the database alone.
    const emails: string[] = []
    const variables: string[] = []
    for (let i = 0; i < CONTACTS; i++) {
      const c = benchContact(i)
      emails.push(c.email)
      variables.push(JSON.stringify(c.variables))
    }
    console.log(`${dialect} raw: inserting …`)
    const rows = { accountId: account.id, emails, variables }
    const seconds = dialect === 'sqlite' ? insertRawSqlite(database, rows) : await insertRawPostgres(database, rows)
    return measurement(dialect, 'raw', seconds, null, { how: dialect === 'sqlite' ? 'one prepared statement, one transaction (better-sqlite3)' : 'one COPY … FROM STDIN of every row, one transaction (pg-copy-streams)' })
  } finally {
    await database.drop()
  }
}

interface RawRows {
  accountId: number
  emails: string[]
  variables: string[]
}

function insertRawSqlite(database: BenchDatabase, rows: RawRows): number {
  const db = new SQLite(database.url.slice('sqlite:'.length))
  try {
    // The pragmas the server sets (src/storage/db.ts).
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    const now = Date.now()
    const list = Number(db.prepare(`insert into address_books (account_id, name, status, created_at, updated_at) values (?, 'raw', 0, ?, ?)`).run(rows.accountId, now, now).lastInsertRowid)
    const insert = db.prepare(
      `insert into contacts (account_id, address_book_id, email, status, phone, variables, source, created_at, updated_at) values (?, ?, ?, 1, null, ?, 'import', ?, ?)`,
    )
    const started = performance.now()
    const cpu = process.cpuUsage()
    db.transaction(() => {
      for (let i = 0; i < rows.emails.length; i++) insert.run(rows.accountId, list, rows.emails[i], rows.variables[i], now, now)
    })()
    const used = process.cpuUsage(cpu)
    console.log(`  CPU ${fmt((used.user + used.system) / 1e6, 1)} s (${fmt((used.user + used.system) / rows.emails.length, 1)} µs a row)`)
    return (performance.now() - started) / 1000
  } finally {
    db.close()
  }
}

async function insertRawPostgres(database: BenchDatabase, rows: RawRows): Promise<number> {
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try {
    const now = Date.now()
    const created = await client.query<{ id: number }>(
      `insert into address_books (account_id, name, status, created_at, updated_at) values ($1, 'raw', 0, $2, $2) returning id`,
      [rows.accountId, now],
    )
    const list = created.rows[0]!.id
    // The COPY text is made before the clock starts, in chunks of BATCH rows: this measures the database alone.
    const chunks: Buffer[] = []
    for (let from = 0; from < rows.emails.length; from += BATCH) {
      let text = ''
      for (let i = from; i < Math.min(rows.emails.length, from + BATCH); i++) {
        text += copyRow([rows.accountId, list, rows.emails[i]!, 1, null, rows.variables[i]!, 'import', now, now])
      }
      chunks.push(Buffer.from(text))
    }
    const backend = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid
    const backendCpu = existsSync(`/proc/${backend}/stat`) ? () => cpuSeconds(backend) : () => NaN // a local server only
    const cpuBefore = backendCpu()
    const started = performance.now()
    await client.query('begin')
    const copy = client.query(copyFrom('copy contacts (account_id, address_book_id, email, status, phone, variables, source, created_at, updated_at) from stdin'))
    await pipeline(Readable.from(chunks), copy)
    await client.query('commit')
    const seconds = (performance.now() - started) / 1000
    const cpu = backendCpu() - cpuBefore
    if (!Number.isNaN(cpu)) console.log(`  PostgreSQL backend CPU ${fmt(cpu, 1)} s (${fmt((cpu * 1e6) / rows.emails.length, 1)} µs a row)`)
    return seconds
  } finally {
    await client.end()
  }
}

// ---- reporting ------------------------------------------------------------------------------------------

function measurement(dialect: Dialect, way: Way, seconds: number, peak: number | null, details: Record<string, unknown>): Measurement {
  const m: Measurement = { dialect, way, contacts: CONTACTS, seconds, contactsPerSecond: CONTACTS / seconds, peakRssMiB: peak, details }
  console.log(`  ${fmt(m.contactsPerSecond, 0)} contacts/s, ${fmt(seconds, 1)} s${peak === null ? '' : `, peak RSS ${fmt(peak, 0)} MiB`}`)
  return m
}

const WAY_LABELS: Record<Way, string> = {
  api: `API, ${BATCH} per request, ${CONCURRENCY} in flight`,
  cli: 'CLI `tidings import` (CSV)',
  raw: 'raw: SQLite prepared inserts, PostgreSQL COPY (no HTTP, no validation)',
}

function report(measured: Measurement[]): void {
  const goals = GOALS.flatMap((g) => {
    const m = measured.find((x) => x.dialect === g.dialect && x.way === g.way)
    const raw = measured.find((x) => x.dialect === g.dialect && x.way === 'raw')
    if (!m || !raw) return []
    const value = m.contactsPerSecond / raw.contactsPerSecond
    return [{ goal: `${g.dialect} ${g.way}: >= ${g.ofRaw} of raw, same run`, value, met: value >= g.ofRaw }]
  })
  const date = new Date().toISOString()
  const environment = { ...machine(), contacts: CONTACTS, batch: BATCH, concurrency: CONCURRENCY, postgres: TARGETS.includes('postgres') ? postgresSource() : null, profiled: PROFILE }
  const file = writeResults('import', { date, environment, results: measured, goals })

  console.log('')
  console.log('| database | way | contacts/s | seconds | peak RSS (MiB) | ÷ raw |')
  console.log('|---|---|---:|---:|---:|---:|')
  for (const m of measured) {
    const raw = measured.find((r) => r.dialect === m.dialect && r.way === 'raw')
    const ratio = raw && m.way !== 'raw' ? `${fmt(m.contactsPerSecond / raw.contactsPerSecond, 2)}×` : '–'
    console.log(`| ${m.dialect} | ${WAY_LABELS[m.way]} | ${fmt(m.contactsPerSecond, 0)} | ${fmt(m.seconds, 1)} | ${m.peakRssMiB === null ? '–' : fmt(m.peakRssMiB, 0)} | ${ratio} |`)
  }
  console.log('')
  for (const g of goals) console.log(`${g.met ? 'MET   ' : 'MISSED'} ${g.goal} (measured ${fmt(g.value, 2)})`)
  console.log(`\n${environment.cpus} CPUs (${environment.cpuModel}), node ${process.version}; results written to ${file}`)
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err)
  process.exitCode = 1
})
