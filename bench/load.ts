// `npm run bench:load` (issue 20): two API processes (`tidings serve --no-dispatch` × 2) on one PostgreSQL under
// autocannon, BENCH_CONNECTIONS (200) connections for BENCH_DURATION (60 s, after BENCH_WARMUP seconds not counted),
// a mix of reads and writes across BENCH_ACCOUNTS (50) accounts, each request with the token of a random account on
// its own list:
//
//   GET /addressbooks/{id} 30 %, GET /addressbooks/{id}/emails?limit=10 20 %, GET /campaigns 20 %,
//   POST /addressbooks/{id}/emails (2 new contacts) 20 %, POST /addressbooks (a new list) 10 %.
//
// One autocannon instance is given both addresses: its connections alternate between them (connection i goes to
// address i mod 2), as a load balancer spreading connections round robin would, and its one latency histogram
// holds every answer, so the p99 is that of all requests (two instances would give two p99s that cannot be merged).
// Every answer is checked: its status (200) and its body's shape (the list asked for, an array, `result: true`, a
// new id); a wrong one counts as an error, and the run fails on any error, timeout, non-2xx or 5xx.
//
// The per-account request limit stays on (TIDINGS_API_RATE/BURST 1,000,000, bench/lib/tidings.ts): its shared
// bucket in the database is part of every figure, its 429s in none. RSS (VmRSS) and CPU time of each API process are
// read at the start and at the end of the measured load, and PostgreSQL's CPU time (an embedded PostgreSQL is this
// run's child) with them.
//
// The reference, in the same run after Tidings: the same mix from the same client against two processes of bare
// Fastify 5 (the same routes, no auth, no database, each answering a constant body of the shape Tidings answered,
// JSON bodies parsed): what the machine and the client allow over HTTP alone.
//
// Environment: BENCH_DURATION (60), BENCH_WARMUP (5), BENCH_CONNECTIONS (200), BENCH_ACCOUNTS (50),
// BENCH_LIST_CONTACTS (100: contacts in each account's list at the start), BENCH_LOG_LEVEL (the server's default,
// info: one access line a request), BENCH_MIX (the weights above, `kind=weight,…`), BENCH_REFERENCE=0 (skip the reference), BENCH_SKIP_BUILD=1,
// TIDINGS_TEST_DATABASE_URL.
import pino from 'pino'
import { autocannon, type AutocannonRequest, type AutocannonResult } from './lib/autocannon.js'
import { fmt, machine, positiveNumber, writeResults } from './lib/env.js'
import { cpuSeconds, machineCpu, namedTreeCpuSeconds, rssMiB } from './lib/proc-stats.js'
import { buildUnlessSkipped, peakRssMiB, startChild, waitFor, type Child } from './lib/processes.js'
import { json } from './lib/http.js'
import { sampleActivity, type ActivityShare } from './lib/pg-activity.js'
import { authorization, createBenchDatabase, createList, postgresSource, startServer, stopEmbeddedPostgres, type BenchDatabase, type TidingsServer } from './lib/tidings.js'
import { freePort } from '../test/helpers/postgres.js'
import { loadConfig } from '../src/config/load.js'
import { openDeps } from '../src/main.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { createAccount } from '../src/services/accounts/accounts.js'
import { SETTINGS } from '../src/config/schema.js'

const DURATION = positiveNumber('BENCH_DURATION', 60)
const WARMUP = positiveNumber('BENCH_WARMUP', 5)
const CONNECTIONS = Math.max(2, Math.round(positiveNumber('BENCH_CONNECTIONS', 200)))
const ACCOUNTS = Math.max(1, Math.round(positiveNumber('BENCH_ACCOUNTS', 50)))
const LIST_CONTACTS = Math.round(positiveNumber('BENCH_LIST_CONTACTS', 100))
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || String(SETTINGS.logLevel.default({}))
const REFERENCE = process.env.BENCH_REFERENCE !== '0'
const PROCESSES = 2

type Kind = 'book' | 'emails' | 'campaigns' | 'addContacts' | 'createBook'
const KINDS: readonly Kind[] = ['book', 'emails', 'campaigns', 'addContacts', 'createBook']
/** The mix: each request's kind drawn with these weights (BENCH_MIX, e.g. `book=1` or `book=3,addContacts=1`). */
const MIX: readonly [Kind, number][] = mixFromEnv(process.env.BENCH_MIX || 'book=0.3,emails=0.2,campaigns=0.2,addContacts=0.2,createBook=0.1')

function mixFromEnv(text: string): [Kind, number][] {
  const entries = text.split(',').map((part) => {
    const [kind, weight] = part.split('=').map((x) => x.trim())
    if (!KINDS.includes(kind as Kind) || !(Number(weight) > 0)) throw new Error(`BENCH_MIX: ${part} is not kind=weight (kinds: ${KINDS.join(', ')})`)
    return [kind as Kind, Number(weight)] as [Kind, number]
  })
  const total = entries.reduce((sum, [, w]) => sum + w, 0)
  return entries.map(([k, w]) => [k, w / total])
}

interface LoadAccount {
  authorization: string
  list: number
}

interface Checks {
  byKind: Record<Kind, number>
  wrong: number
  wrongSamples: string[]
}

interface ProcessStats {
  pid: number
  rssStartMiB: number | null
  rssEndMiB: number | null
  peakRssMiB: number | null
  cpuSeconds: number | null
}

interface LoadResult {
  target: string
  reqPerSec: number
  totalRequests: number
  latency: { p50: number; p90?: number; p99: number; max: number; average: number }
  errors: number
  timeouts: number
  non2xx: number
  serverErrors: number
  statusCodes: Record<string, number>
  checks: Checks
  processes: ProcessStats[]
  postgresCores: number | null
  benchCores: number
  otherCores: number | null
  seconds: number
  /** What PostgreSQL's backends did during the load (Tidings only). */
  activity: { samples: number; states: ActivityShare[] } | null
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function pickKind(): Kind {
  let x = Math.random()
  for (const [kind, weight] of MIX) {
    if (x < weight) return kind
    x -= weight
  }
  return MIX[0]![0]
}

let newContact = 0
let newList = 0

/** The request of one kind for one account; `check` says whether its answer is right. */
function requestOf(kind: Kind, account: LoadAccount): { request: AutocannonRequest; check: (status: number, body: string) => boolean } {
  const headers = { authorization: account.authorization, 'content-type': 'application/json' }
  const ok = (status: number, body: string, shape: (value: unknown) => boolean) => {
    if (status !== 200) return false
    try {
      return shape(JSON.parse(body))
    } catch {
      return false
    }
  }
  switch (kind) {
    case 'book':
      return {
        request: { method: 'GET', path: `/addressbooks/${account.list}`, headers },
        check: (s, b) => ok(s, b, (v) => {
          const book = (Array.isArray(v) ? v[0] : v) as { id?: unknown; all_email_qty?: unknown } | undefined
          return Number(book?.id) === account.list && typeof book?.all_email_qty === 'number'
        }),
      }
    case 'emails':
      return { request: { method: 'GET', path: `/addressbooks/${account.list}/emails?limit=10`, headers }, check: (s, b) => ok(s, b, (v) => Array.isArray(v) && v.length <= 10) }
    case 'campaigns':
      return { request: { method: 'GET', path: '/campaigns', headers }, check: (s, b) => ok(s, b, (v) => Array.isArray(v)) }
    case 'addContacts': {
      const n = newContact++
      const emails = [0, 1].map((i) => ({ email: `load${n}.${i}@example.com`, variables: { name: `Load ${n}` } }))
      return {
        request: { method: 'POST', path: `/addressbooks/${account.list}/emails`, headers, body: JSON.stringify({ emails }) },
        check: (s, b) => ok(s, b, (v) => (v as { result?: unknown }).result === true),
      }
    }
    case 'createBook':
      return {
        request: { method: 'POST', path: '/addressbooks', headers, body: JSON.stringify({ bookName: `load ${newList++}` }) },
        check: (s, b) => ok(s, b, (v) => typeof (v as { id?: unknown }).id === 'number'),
      }
  }
}

/** autocannon's one request: a random kind for a random account each time, its check kept in the connection's context. */
function mixedRequest(accounts: readonly LoadAccount[], checks: Checks, checkBody: boolean): AutocannonRequest {
  return {
    setupRequest: (_request, context) => {
      const kind = pickKind()
      const { request, check } = requestOf(kind, accounts[Math.floor(Math.random() * accounts.length)]!)
      context.kind = kind
      context.check = check
      return request
    },
    onResponse: (status, body, context) => {
      const c = context as { kind: Kind; check: (status: number, body: string) => boolean }
      checks.byKind[c.kind]++
      if (checkBody ? c.check(status, body) : status === 200) return
      checks.wrong++
      if (checks.wrongSamples.length < 5) checks.wrongSamples.push(`${c.kind}: ${status} ${body.slice(0, 200)}`)
    },
  }
}

const emptyChecks = (): Checks => ({ byKind: { book: 0, emails: 0, campaigns: 0, addContacts: 0, createBook: 0 }, wrong: 0, wrongSamples: [] })

async function load(target: string, urls: string[], children: Child[], accounts: readonly LoadAccount[], checkBody: boolean, databaseUrl?: string): Promise<LoadResult> {
  if (WARMUP > 0) await autocannon({ url: urls, connections: CONNECTIONS, duration: WARMUP, requests: [mixedRequest(accounts, emptyChecks(), checkBody)] })
  const sampler = databaseUrl ? await sampleActivity(databaseUrl, 50) : undefined
  const pids = children.map((c) => c.process.pid!)
  const rssStart = pids.map((pid) => rssMiB(pid))
  const cpuStart = pids.map((pid) => cpuSeconds(pid))
  const pgStart = namedTreeCpuSeconds(process.pid, 'postgres')
  const benchStart = process.cpuUsage()
  const machineStart = machineCpu()
  const started = performance.now()
  const checks = emptyChecks()
  console.log(`${target}: ${CONNECTIONS} connections over ${urls.join(' and ')}, ${DURATION} s`)
  const r: AutocannonResult & { latency: { p90?: number } } = await autocannon({ url: urls, connections: CONNECTIONS, duration: DURATION, requests: [mixedRequest(accounts, checks, checkBody)] })
  const seconds = (performance.now() - started) / 1000
  const activity = (await sampler?.stop()) ?? null
  const bench = process.cpuUsage(benchStart)
  const benchSeconds = (bench.user + bench.system) / 1e6
  const pgEnd = namedTreeCpuSeconds(process.pid, 'postgres')
  const machineEnd = machineCpu()
  const processes: ProcessStats[] = pids.map((pid, i) => {
    const cpuEnd = cpuSeconds(pid)
    return { pid, rssStartMiB: rssStart[i]!, rssEndMiB: rssMiB(pid), peakRssMiB: peakRssMiB(pid), cpuSeconds: cpuEnd !== null && cpuStart[i] !== null ? cpuEnd - cpuStart[i]! : null }
  })
  const postgres = pgEnd !== null && pgStart !== null ? pgEnd - pgStart : null
  const ours = processes.reduce((sum, p) => sum + (p.cpuSeconds ?? 0), 0) + (postgres ?? 0) + benchSeconds
  const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, Number(s.count)]))
  const result: LoadResult = {
    target,
    reqPerSec: r.requests.average,
    totalRequests: Object.values(statusCodes).reduce((n, c) => n + c, 0),
    latency: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max, average: r.latency.average },
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    serverErrors: Object.entries(statusCodes).filter(([code]) => code.startsWith('5')).reduce((n, [, c]) => n + c, 0),
    statusCodes,
    checks,
    processes,
    postgresCores: postgres === null ? null : postgres / seconds,
    benchCores: benchSeconds / seconds,
    otherCores: machineStart && machineEnd ? Math.max(0, machineEnd.busySeconds - machineStart.busySeconds - ours) / seconds : null,
    seconds,
    activity,
  }
  const c = (n: number | null) => (n === null ? '?' : fmt(n, 2))
  console.log(
    `  ${fmt(result.reqPerSec, 0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms; ${fmt(result.totalRequests, 0)} answers, ` +
      `errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}, 5xx ${result.serverErrors}, wrong answers ${checks.wrong} ${checks.wrongSamples.join(' | ')}`,
  )
  console.log(
    `  per kind ${JSON.stringify(checks.byKind)}; cores: servers ${processes.map((p) => c(p.cpuSeconds === null ? null : p.cpuSeconds / seconds)).join(' + ')}, PostgreSQL ${c(result.postgresCores)}, ` +
      `autocannon ${c(result.benchCores)}, other ${c(result.otherCores)}; RSS MiB (start → end, peak) ${processes.map((p) => `${c(p.rssStartMiB)} → ${c(p.rssEndMiB)} (${c(p.peakRssMiB)})`).join(', ')}`,
  )
  for (const s of activity?.states.slice(0, 5) ?? []) console.log(`    PostgreSQL backends ${s.state}: ${fmt(s.backends, 2)} (${s.statements.map((q) => `${fmt(q.backends, 2)} ${q.query}`).join(' | ')})`)
  return result
}

// ---- Tidings -------------------------------------------------------------------------------------------------------

/** ACCOUNTS accounts made in this process (the CLI would start Node 50 times), each with a list of LIST_CONTACTS contacts and a token. */
async function prepareAccounts(database: BenchDatabase, server: TidingsServer): Promise<LoadAccount[]> {
  const config = loadConfig({ env: database.env })
  const { deps, storage } = openDeps(config, pino({ level: 'warn' }))
  const created = []
  try {
    await migrateToLatest(storage.db as never)
    for (let i = 0; i < ACCOUNTS; i++) created.push(await createAccount(deps, { name: `load ${i}` }))
  } finally {
    await storage.close()
  }
  const accounts: LoadAccount[] = []
  for (const account of created) {
    const headers = await authorization(server.base, { id: account.id, client_id: account.client_id, client_secret: account.client_secret })
    const list = await createList(server.base, headers, 'load')
    const emails = Array.from({ length: LIST_CONTACTS }, (_, i) => ({ email: `reader${i}.a${account.id}@example.com`, variables: { name: `Reader ${i}` } }))
    if (emails.length > 0) {
      const answer = await json<{ result?: boolean }>(`${server.base}/addressbooks/${list}/emails`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ emails }) })
      if (answer.result !== true) throw new Error(`adding contacts answered ${JSON.stringify(answer)}`)
    }
    accounts.push({ authorization: headers.authorization!, list })
  }
  return accounts
}

async function benchTidings(): Promise<{ result: LoadResult; bodies: Record<Kind, string> }> {
  const database = await createBenchDatabase('postgres', LOG_LEVEL)
  const servers: TidingsServer[] = []
  try {
    // The first server migrates (accounts are made after it answers), the second starts on the migrated database.
    servers.push(await startServer(database, 'load-1', undefined, ['--no-dispatch']))
    const accounts = await prepareAccounts(database, servers[0]!)
    servers.push(await startServer(database, 'load-2', undefined, ['--no-dispatch']))
    console.log(`${ACCOUNTS} accounts, each with a list of ${LIST_CONTACTS} contacts; API processes ${servers.map((s) => s.child.process.pid).join(', ')}`)
    const bodies = await answerBodies(servers[0]!.base, accounts[0]!)
    const result = await load('Tidings, 2 × serve --no-dispatch, PostgreSQL', servers.map((s) => s.base), servers.map((s) => s.child), accounts, true, database.url)
    return { result, bodies }
  } finally {
    for (const s of servers) await s.stop()
    await database.drop()
  }
}

/** What Tidings answers each kind of request: the bare reference answers the same bytes. */
async function answerBodies(base: string, account: LoadAccount): Promise<Record<Kind, string>> {
  const bodies = {} as Record<Kind, string>
  for (const kind of KINDS) {
    const { request, check } = requestOf(kind, account)
    const res = await fetch(`${base}${request.path}`, { method: request.method, headers: request.headers, body: request.body })
    const body = await res.text()
    if (!check(res.status, body)) throw new Error(`${kind}: unexpected answer ${res.status} ${body.slice(0, 300)}`)
    bodies[kind] = body
  }
  return bodies
}

// ---- the reference: bare Fastify -----------------------------------------------------------------------------------

// Fastify's defaults (no logger), the routes of the mix, each answering the constant Tidings answered (parsed once,
// serialised on every request as an ordinary handler's answer would be); JSON bodies are parsed by Fastify.
const BARE_SERVER = `
import Fastify from 'fastify'
const BODIES = JSON.parse(process.env.BENCH_BODIES)
const app = Fastify()
app.get('/addressbooks/:id', async () => BODIES.book)
app.get('/addressbooks/:id/emails', async () => BODIES.emails)
app.get('/campaigns', async () => BODIES.campaigns)
app.post('/addressbooks/:id/emails', async () => BODIES.addContacts)
app.post('/addressbooks', async () => BODIES.createBook)
await app.listen({ host: '127.0.0.1', port: Number(process.env.BENCH_PORT) })
const stop = () => app.close().then(() => process.exit(0))
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
`

async function benchBare(bodies: Record<Kind, string>): Promise<LoadResult> {
  const parsed = Object.fromEntries(Object.entries(bodies).map(([k, v]) => [k, JSON.parse(v)]))
  const children: Child[] = []
  const urls: string[] = []
  try {
    for (let i = 0; i < PROCESSES; i++) {
      const port = await freePort()
      const child = startChild(`bare-fastify-${i + 1}`, 'node', ['--input-type=module', '-e', BARE_SERVER], { ...process.env, BENCH_BODIES: JSON.stringify(parsed), BENCH_PORT: String(port) })
      children.push(child)
      urls.push(`http://127.0.0.1:${port}`)
      await waitFor(`${urls[i]}/campaigns`, child)
    }
    const accounts = [{ authorization: 'Bearer none', list: 1 }]
    return await load('bare Fastify 5 × 2 (no auth, no database)', urls, children, accounts, false)
  } finally {
    for (const c of children) await c.stop()
  }
}

// ---- main ----------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  buildUnlessSkipped()
  console.log(`bench:load: ${CONNECTIONS} connections, ${DURATION} s (+${WARMUP} s warm-up), ${ACCOUNTS} accounts, PostgreSQL (${postgresSource()}), LOG_LEVEL ${LOG_LEVEL}`)
  let tidings: Awaited<ReturnType<typeof benchTidings>>
  try {
    tidings = await benchTidings()
  } finally {
    await stopEmbeddedPostgres()
  }
  await sleep(1000)
  const bare = REFERENCE ? await benchBare(tidings.bodies) : null
  const r = tidings.result
  const goals = [
    { goal: 'every answer right: 0 errors, 0 timeouts, 0 non-2xx, 0 5xx, 0 wrong bodies', value: `${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx, ${r.serverErrors} 5xx, ${r.checks.wrong} wrong`, met: r.errors + r.timeouts + r.non2xx + r.serverErrors + r.checks.wrong === 0 },
  ]
  const date = new Date().toISOString()
  const environment = { ...machine(), connections: CONNECTIONS, duration: DURATION, warmup: WARMUP, accounts: ACCOUNTS, listContacts: LIST_CONTACTS, mix: MIX, logLevel: LOG_LEVEL, postgres: postgresSource() }
  const file = writeResults('load', { date, environment, results: [r, bare].filter(Boolean), goals })
  const c = (n: number | null | undefined, d = 2) => (n === null || n === undefined ? '?' : fmt(n, d))
  console.log('')
  console.log('| target | req/s | p50 ms | p99 ms | max ms | errors / timeouts / non-2xx / 5xx / wrong | cores: servers | PostgreSQL | autocannon | other | RSS MiB start → end (peak) | ÷ bare req/s |')
  console.log('|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---:|')
  for (const x of [r, bare]) {
    if (!x) continue
    console.log(
      `| ${x.target} | ${fmt(x.reqPerSec, 0)} | ${x.latency.p50} | ${x.latency.p99} | ${x.latency.max} | ${x.errors} / ${x.timeouts} / ${x.non2xx} / ${x.serverErrors} / ${x.checks.wrong} | ` +
        `${x.processes.map((p) => c(p.cpuSeconds === null ? null : p.cpuSeconds / x.seconds)).join(' + ')} | ${c(x.postgresCores)} | ${c(x.benchCores)} | ${c(x.otherCores)} | ` +
        `${x.processes.map((p) => `${c(p.rssStartMiB, 0)} → ${c(p.rssEndMiB, 0)} (${c(p.peakRssMiB, 0)})`).join(', ')} | ${bare ? fmt(x.reqPerSec / bare.reqPerSec, 3) : '–'} |`,
    )
  }
  console.log('')
  for (const g of goals) console.log(`${g.met ? 'MET   ' : 'MISSED'} ${g.goal} (measured ${g.value})`)
  console.log(`\n${environment.cpus} CPUs (${environment.cpuModel}), node ${process.version}; results written to ${file}`)
  if (goals.some((g) => !g.met)) process.exitCode = 1
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err)
  process.exitCode = 1
})
