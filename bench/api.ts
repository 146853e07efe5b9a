// `npm run bench:api`: throughput and latency of GET /addressbooks/{id} (bearer check + book lookup + counts)
// on SQLite and on PostgreSQL, against a bare Fastify 5 route serving the same JSON as a constant; and of the
// tracking hits of a sent campaign (GET of open pixels and click redirects with valid tokens, each request to
// another message) against bare Fastify routes answering the same bytes (bench/lib/tracking-hits.ts).
//
// Every server runs in its own child process (`node bin/tidings.js serve` on the freshly built dist/, at the server's
// default LOG_LEVEL as a new user runs it; the bare route through `node --input-type=module`), so autocannon, which
// runs in this process, does not share an event loop with the server it measures.
//
// Environment: BENCH_DURATION (seconds per target, default 20), BENCH_WARMUP (seconds, default 3, not counted),
// BENCH_CONNECTIONS (default 50), BENCH_TARGETS (comma list of sqlite,postgres,bare; default all three),
// BENCH_PATHS (comma list of addressbook,pixel,click; default all three), BENCH_TRACKING_MESSAGES (messages of the
// tracked campaign, default 20000), BENCH_ROUNDS (tracking loads in that many rounds, alternating with the
// reference's; default 3),
// BENCH_LOG_LEVEL (the Tidings server's LOG_LEVEL, default: the server's own default, info), BENCH_PROFILE=1 (run
// the servers with --cpu-prof; profiles land in bench/results/profiles/ — this slows them down, so do not compare such runs),
// BENCH_SKIP_BUILD=1 (use dist/ as it is), TIDINGS_TEST_DATABASE_URL (PostgreSQL server URL with rights to
// create databases; without it an embedded PostgreSQL is started).
import { autocannon } from './lib/autocannon.js'
import { fmt, listFromEnv, machine, positiveNumber, targetsFromEnv, writeResults } from './lib/env.js'
import { buildUnlessSkipped, PROFILE, profileArgs, startChild, waitFor } from './lib/processes.js'
import { printProfile, type ProfileSummary } from './lib/cpu-profile.js'
import { loadInRounds, startBareTracking, type HitKind, type HitLoad } from './lib/tracking-hits.js'
import { benchTrackingTarget, type TrackingResult } from './lib/tracking-target.js'
import {
  authorization,
  createAccount,
  createBenchDatabase,
  createList,
  postgresSource,
  startServer,
  stopEmbeddedPostgres,
  type TidingsServer,
} from './lib/tidings.js'
import { freePort } from '../test/helpers/postgres.js'
import { SETTINGS } from '../src/config/schema.js'

const DURATION = positiveNumber('BENCH_DURATION', 20)
const WARMUP = Math.min(positiveNumber('BENCH_WARMUP', 3), DURATION)
const CONNECTIONS = positiveNumber('BENCH_CONNECTIONS', 50)
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || String(SETTINGS.logLevel.default({}))

type TargetName = 'sqlite' | 'postgres' | 'bare'
const TARGETS = targetsFromEnv<TargetName>(['sqlite', 'postgres', 'bare'])
const LABELS: Record<TargetName, string> = {
  sqlite: 'Tidings, SQLite',
  postgres: 'Tidings, PostgreSQL',
  bare: 'bare Fastify 5 (no auth, no DB)',
}
type PathName = 'addressbook' | HitKind
const PATHS = listFromEnv<PathName>('BENCH_PATHS', ['addressbook', 'pixel', 'click'], ['addressbook', 'pixel', 'click'])
const HIT_KINDS = PATHS.filter((p): p is HitKind => p !== 'addressbook')
const PATH_LABELS: Record<PathName, string> = {
  addressbook: 'GET /addressbooks/{id}',
  pixel: 'GET /t/{token}/open.gif',
  click: 'GET /t/{token}/c/0',
}
const TRACKING_MESSAGES = Math.max(1, Math.floor(positiveNumber('BENCH_TRACKING_MESSAGES', 20_000)))
const ROUNDS = Math.max(1, Math.floor(positiveNumber('BENCH_ROUNDS', 3)))
const TRACKING = {
  count: TRACKING_MESSAGES,
  kinds: HIT_KINDS,
  logLevel: LOG_LEVEL,
  profile: PROFILE,
  rounds: ROUNDS,
  roundSeconds: DURATION / ROUNDS,
  warmup: WARMUP,
  connections: CONNECTIONS,
}

interface Measurement {
  target: TargetName
  path: PathName
  label: string
  url: string
  reqPerSec: number
  latencyP50Ms: number
  latencyP99Ms: number
  latencyAvgMs: number
  latencyMaxMs: number
  totalRequests: number
  errors: number
  timeouts: number
  non2xx: number
  mismatches: number
  statusCodes: Record<string, number>
  durationSeconds: number
  /** Tracking hits: req/s of each round (the figures above are their medians). */
  rounds?: number[]
  /** Tracking hits: the server's CPU time (all threads) per answer, in µs (the median of the rounds). */
  serverCpuMicrosPerRequest?: number | null
  /** Tracking hits, the reference: the database whose rounds it alternated with. */
  alongside?: 'sqlite' | 'postgres'
  /** Tracking hits: the CPU profile of the server over the load (BENCH_PROFILE=1). */
  profile?: ProfileSummary
}

async function main(): Promise<void> {
  console.log(`autocannon: ${CONNECTIONS} connections, ${DURATION} s per target (after ${WARMUP} s warm-up)`)
  buildUnlessSkipped()

  const measured: Measurement[] = []
  let body: string | undefined
  // The tracking reference runs beside the Tidings servers: its rounds alternate with theirs.
  const bareTracking = HIT_KINDS.length > 0 && TARGETS.includes('bare') ? await startBareTracking(TRACKING_MESSAGES) : undefined
  try {
    for (const target of ['sqlite', 'postgres'] as const) {
      if (!TARGETS.includes(target)) continue
      if (PATHS.includes('addressbook')) {
        const result = await benchTidings(target)
        body ??= result.body
        if (result.measurement) measured.push(result.measurement)
      }
      if (HIT_KINDS.length > 0) measured.push(...trackingMeasurements(target, await benchTrackingTarget(target, { ...TRACKING, bare: bareTracking })))
    }
    if (TARGETS.includes('bare')) {
      if (PATHS.includes('addressbook')) {
        // The reference needs a real response body; capture one from SQLite when no Tidings target was run.
        body ??= (await benchTidings('sqlite', { captureOnly: true })).body
        measured.push(await benchBare(body))
      }
      // With no Tidings target, the reference alone.
      if (bareTracking && !measured.some((m) => m.path !== 'addressbook')) {
        for (const kind of HIT_KINDS) measured.push(hitMeasurement('bare', kind, (await loadInRounds(kind, { bare: bareTracking }, TRACKING)).bare!))
      }
    }
  } finally {
    await bareTracking?.stop()
  }
  await stopEmbeddedPostgres()
  report(measured, body)
}

// ---- Tidings -------------------------------------------------------------------------------------------

async function benchTidings(
  dialect: 'sqlite' | 'postgres',
  options: { captureOnly?: boolean } = {},
): Promise<{ body: string; measurement?: Measurement }> {
  const database = await createBenchDatabase(dialect, LOG_LEVEL)
  let server: TidingsServer | undefined
  try {
    const account = createAccount(database)
    server = await startServer(database, dialect)
    const headers = await authorization(server.base, account)
    const id = await createList(server.base, headers, 'bench')
    const url = `${server.base}/addressbooks/${id}`
    const probe = await fetch(url, { headers })
    const body = await probe.text()
    if (probe.status !== 200) throw new Error(`GET /addressbooks/${id} answered ${probe.status}: ${body}`)
    if (options.captureOnly) return { body }
    return { body, measurement: await measure(dialect, url, headers, body) }
  } finally {
    await server?.stop()
    await database.drop()
  }
}

// ---- Tidings: tracking hits -----------------------------------------------------------------------------

/** Tidings' loads of one database and the reference's rounds taken between them, as rows of the report. */
function trackingMeasurements(dialect: 'sqlite' | 'postgres', results: TrackingResult[]): Measurement[] {
  return results.flatMap((r) => {
    const tidings = hitMeasurement(dialect, r.kind, r.tidings)
    if (r.profile) {
      tidings.profile = r.profile
      printProfile(`${tidings.label}, ${PATH_LABELS[r.kind]}`, r.profile, 'its load (the reference\'s rounds idle)')
    }
    return r.bare ? [tidings, { ...hitMeasurement('bare', r.kind, r.bare), alongside: dialect }] : [tidings]
  })
}

function hitMeasurement(target: TargetName, kind: HitKind, load: HitLoad): Measurement {
  return {
    target,
    path: kind,
    label: LABELS[target],
    url: PATH_LABELS[kind],
    reqPerSec: load.reqPerSec,
    latencyP50Ms: load.latency.p50,
    latencyP99Ms: load.latency.p99,
    latencyAvgMs: load.latency.average,
    latencyMaxMs: load.latency.max,
    totalRequests: load.totalRequests,
    errors: load.errors,
    timeouts: load.timeouts,
    // 3xx is the right answer of a click: what counts is the check of every answer.
    non2xx: 0,
    mismatches: load.wrong,
    statusCodes: load.statusCodes,
    durationSeconds: load.durationSeconds,
    rounds: load.rounds,
    serverCpuMicrosPerRequest: load.cpuMicrosPerRequest,
  }
}

// ---- bare Fastify reference ----------------------------------------------------------------------------

// Fastify's defaults (no logger), one route with the same shape of path, answering a constant. No schema, so
// the constant goes through JSON.stringify on every request, as an ordinary Fastify handler's answer would.
const BARE_SERVER = `
import Fastify from 'fastify'
const BODY = JSON.parse(process.env.BENCH_BODY)
const app = Fastify()
app.get('/addressbooks/:id', async () => BODY)
await app.listen({ host: '127.0.0.1', port: Number(process.env.BENCH_PORT) })
const stop = () => app.close().then(() => process.exit(0))
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
`

async function benchBare(body: string): Promise<Measurement> {
  const port = await freePort()
  const env = { ...process.env, BENCH_BODY: body, BENCH_PORT: String(port) }
  const server = startChild('bare-fastify', 'node', [...profileArgs('bare'), '--input-type=module', '-e', BARE_SERVER], env)
  try {
    const url = `http://127.0.0.1:${port}/addressbooks/1`
    await waitFor(url, server)
    const probe = await (await fetch(url)).text()
    if (probe !== body) throw new Error(`bare route answers ${probe}, expected ${body}`)
    return await measure('bare', url, {}, body)
  } finally {
    await server.stop()
  }
}

// ---- measuring and reporting ---------------------------------------------------------------------------

async function measure(target: TargetName, url: string, headers: Record<string, string>, body: string): Promise<Measurement> {
  if (WARMUP > 0) await autocannon({ url, connections: CONNECTIONS, duration: WARMUP, headers })
  console.log(`measuring ${LABELS[target]}: ${url}`)
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers, expectBody: body })
  const m: Measurement = {
    target,
    path: 'addressbook',
    label: LABELS[target],
    url,
    reqPerSec: r.requests.average,
    latencyP50Ms: r.latency.p50,
    latencyP99Ms: r.latency.p99,
    latencyAvgMs: r.latency.average,
    latencyMaxMs: r.latency.max,
    totalRequests: Object.values(r.statusCodeStats).reduce((n, s) => n + Number(s.count), 0),
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    mismatches: r.mismatches,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, Number(s.count)])),
    durationSeconds: r.duration,
  }
  console.log(`  ${fmt(m.reqPerSec, 0)} req/s, p50 ${fmt(m.latencyP50Ms, 2)} ms, p99 ${fmt(m.latencyP99Ms, 2)} ms, errors ${m.errors}, non-2xx ${m.non2xx}, body mismatches ${m.mismatches}`)
  return m
}

function report(measured: Measurement[], body: string | undefined): void {
  // Each path is compared with the bare route of the same path, measured in the same run; tracking hits with the
  // reference's rounds taken between theirs.
  const bareOf = (m: Measurement) =>
    measured.find((b) => b.target === 'bare' && b.path === m.path && b.alongside === (m.target === 'bare' ? m.alongside : m.target)) ??
    measured.find((b) => b.target === 'bare' && b.path === m.path)
  const rows = measured.map((m) => {
    const bare = bareOf(m)
    return {
      ...m,
      ratioToBare: bare ? {
        reqPerSec: m.reqPerSec / bare.reqPerSec,
        latencyP50: bare.latencyP50Ms > 0 ? m.latencyP50Ms / bare.latencyP50Ms : null,
        latencyP99: bare.latencyP99Ms > 0 ? m.latencyP99Ms / bare.latencyP99Ms : null,
        // The req/s ratio a server that has a core to itself would reach: CPU per answer, the reference's over its.
        serverCpu: m.serverCpuMicrosPerRequest && bare.serverCpuMicrosPerRequest ? bare.serverCpuMicrosPerRequest / m.serverCpuMicrosPerRequest : null,
      } : null,
    }
  })
  // Issue 19's goals: the list read at >= 0.5 of bare Fastify with p99 < 5 ms on SQLite and >= 0.3 on PostgreSQL;
  // each tracking hit at >= 0.5 on SQLite.
  const goals: { goal: string; value: number; met: boolean }[] = []
  for (const m of rows) {
    if (m.target === 'bare' || !m.ratioToBare) continue
    const ratioGoal = m.path === 'addressbook' ? (m.target === 'sqlite' ? 0.5 : 0.3) : m.target === 'sqlite' ? 0.5 : undefined
    if (ratioGoal === undefined) continue
    goals.push({ goal: `${m.label}, ${PATH_LABELS[m.path]}: req/s >= ${ratioGoal} x bare`, value: m.ratioToBare.reqPerSec, met: m.ratioToBare.reqPerSec >= ratioGoal })
    if (m.path === 'addressbook' && m.target === 'sqlite') goals.push({ goal: `${m.label}, ${PATH_LABELS[m.path]}: p99 < 5 ms`, value: m.latencyP99Ms, met: m.latencyP99Ms < 5 })
  }
  const environment = {
    ...machine(),
    connections: CONNECTIONS,
    durationSeconds: DURATION,
    warmupSeconds: WARMUP,
    trackingMessages: HIT_KINDS.length > 0 ? TRACKING_MESSAGES : null,
    trackingRounds: HIT_KINDS.length > 0 ? ROUNDS : null,
    tidingsLogLevel: LOG_LEVEL,
    tidingsServer: 'node bin/tidings.js serve (compiled dist/)',
    postgres: TARGETS.includes('postgres') ? postgresSource() : null,
    profiled: PROFILE,
  }
  const out = { date: new Date().toISOString(), environment, responseBody: body, results: rows, goals }
  const file = writeResults('api', out)

  const ratio = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${fmt(v, 2)}×`)
  console.log('')
  console.log(`| path | target | req/s (avg) | p50 (ms) | p99 (ms) | errors / non-2xx / wrong answers | req/s ÷ bare | p50 ÷ bare | p99 ÷ bare | server CPU µs/req | bare's CPU ÷ its |`)
  console.log(`|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|`)
  for (const m of rows) {
    console.log(
      `| ${PATH_LABELS[m.path]} | ${m.label}${m.alongside ? ` (between ${LABELS[m.alongside]}'s rounds)` : ''} | ${fmt(m.reqPerSec, 0)} | ${fmt(m.latencyP50Ms, 2)} | ${fmt(m.latencyP99Ms, 2)} | ${m.errors} / ${m.non2xx} / ${m.mismatches} | ${ratio(m.ratioToBare?.reqPerSec)} | ${ratio(m.ratioToBare?.latencyP50)} | ${ratio(m.ratioToBare?.latencyP99)} | ${m.serverCpuMicrosPerRequest ? fmt(m.serverCpuMicrosPerRequest, 0) : '–'} | ${ratio(m.ratioToBare?.serverCpu)} |`,
    )
  }
  console.log('')
  for (const g of goals) console.log(`${g.met ? 'MET   ' : 'MISSED'} ${g.goal} (measured ${fmt(g.value, 2)})`)
  console.log(`\n${environment.cpus} CPUs (${environment.cpuModel}), node ${process.version}; results written to ${file}`)
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err)
  process.exitCode = 1
})
