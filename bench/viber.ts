// `npm run bench:viber` (issue 18, "Performance"): a Viber campaign to BENCH_NUMBERS (100,000) numbers of a list,
// sent by `node bin/tidings.js serve` through the Vonage adapter, TIDINGS_VIBER_CONCURRENCY (20) requests in
// flight, to the Vonage stand-in in its own process (bench/lib/vonage-process.ts). The stand-in answers each
// request 202 at once and then sends a signed `delivered` callback to the request's webhook_url, which is
// Tidings' own {TIDINGS_PUBLIC_URL}/viber/callbacks/vonage over HTTP, and times each callback's round trip.
//
// Per database the script makes a fresh database, an account (CLI), credits it (`tidings accounts credit`),
// registers and verifies Viber sender `Bench` (`tidings viber senders add|verify`), and through the API makes a
// list and loads its numbers (POST /sms/numbers, 10,000 a call, 2 in flight). It then starts a fresh server, so
// its RSS and CPU profile are the campaign's, and sends POST /viber (a text with a button). The rate is the
// stand-in's: N − 1 intervals from its first to its last 202. Every SAMPLE_MS the stand-in's counts (over IPC) and
// the server's RSS are read, the database every DB_POLL_MS; the run ends when every message is at status 2, and
// GET /viber/task/{id} must then count N delivered. Callback handling is the round trip of the callbacks the
// stand-in sent between its first and its last 202 ("while sending").
//
// The reference, against the same stand-in process: a bare node:http keep-alive client sending the same N requests
// (the adapter's own vonageRequestOf) with the same concurrency, its callbacks answered at once by a bare HTTP
// server in the benchmark's process (bench/lib/viber-reference.ts); one run before the targets and the others
// after them, the median of BENCH_REFERENCE_RUNS. Every run also gives the CPU the machine spent on processes
// outside this benchmark's tree meanwhile: other jobs, which slow every figure.
//
// Environment: BENCH_NUMBERS (100000), TIDINGS_VIBER_CONCURRENCY (20), BENCH_DIALECTS (sqlite; sqlite,postgres;
// none: the reference only), BENCH_REFERENCE_RUNS (3), BENCH_STALL_SECONDS (30), BENCH_LOG_LEVEL (warn),
// BENCH_PROFILE=1, BENCH_SKIP_BUILD=1, TIDINGS_TEST_DATABASE_URL.
import { randomBytes } from 'node:crypto'
import type { OutboundViber } from '../src/delivery/viber/channel.js'
import { buttonToken } from '../src/services/viber/reports.js'
import { fmt, machine, positiveNumber, writeResults, listFromEnv, printGoals } from './lib/env.js'
import { cpuSeconds, machineCpu, rssMiB, treeCpuSeconds } from './lib/proc-stats.js'
import { latestProfile, printProfile, summariseProfile, type ProfileSummary } from './lib/cpu-profile.js'
import { buildUnlessSkipped, peakRssMiB, PROFILE, run } from './lib/processes.js'
import { loadNumbers, phone } from './lib/phone-lists.js'
import { json, summarize, type LatencySummary } from './lib/http.js'
import { startVonageProcess, type VonageCounts, type VonageProcess } from './lib/vonage-child.js'
import { sendBare, startCallbackSink } from './lib/viber-reference.js'
import { statusReader, type StatusReader } from './lib/message-statuses.js'
import type { CallbackTime } from '../test/helpers/vonage.js'
import {
  authorization,
  createAccount,
  createBenchDatabase,
  createList,
  freePort,
  postgresSource,
  startServer,
  stopEmbeddedPostgres,
  type BenchDatabase,
  type Dialect,
  type TidingsServer,
} from './lib/tidings.js'

const NUMBERS = Math.max(1, Math.round(positiveNumber('BENCH_NUMBERS', 100_000)))
const CONCURRENCY = Math.max(1, Math.round(positiveNumber('TIDINGS_VIBER_CONCURRENCY', 20)))
const REFERENCE_RUNS = Math.max(1, Math.round(positiveNumber('BENCH_REFERENCE_RUNS', 3)))
const STALL_SECONDS = positiveNumber('BENCH_STALL_SECONDS', 30)
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || 'warn'
const DIALECTS = listFromEnv<Dialect>('BENCH_DIALECTS', ['sqlite', 'postgres'], ['sqlite'])

/** Numbers go to the API 10,000 a call (the most POST /sms/numbers takes), 2 calls in flight. */
/** The stand-in's counts and the server's RSS are read this often. */
const SAMPLE_MS = 100
/** The messages table is counted this often, and every SAMPLE_MS once the stand-in has every callback acknowledged. */
const DB_POLL_MS = 250
const SENDER = 'Bench'
/** A promo text with a button (API.md 4.10.1): the button's link is a signed token per message. */
const TEXT = 'Your order 4711 ships today. Track it in the app or on our site. Example Shop'
const BUTTON = { text: 'Track order', link: 'https://shop.example.com/track' }
/** message_live_time: an hour, so that no message ends by its live time during the run. */
const LIVE_SECONDS = 3600
/** TIDINGS_VIBER_PRICES as set for the run; the account is credited far more than the campaign costs. */
const PRICES = 'default=0.01'
const STATUS = { queued: 0, sent: 1, delivered: 2, retrying: 7 }

const GOAL_RATIO = 0.5
const GOAL_CALLBACK_P99_MS = 10

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// ---- main -----------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  console.log(`Viber campaign of ${fmt(NUMBERS, 0)} numbers, ${CONCURRENCY} requests in flight; targets: ${DIALECTS.join(', ') || 'none'}`)
  if (DIALECTS.length > 0) buildUnlessSkipped()
  const vonage = await startVonageProcess({ ...process.env, BENCH_VONAGE_OUTCOME: 'delivered', BENCH_VONAGE_DELAY_MS: '0' })
  const measured: Measurement[] = []
  let bare: BareClient | undefined
  let reference: Reference
  try {
    bare = await bareClient(vonage)
    // One run of the reference before the targets, the others after: the machine's load drifts during a run.
    const runs = [await bare.run()]
    for (const dialect of DIALECTS) measured.push(await benchTidings(dialect, vonage))
    while (runs.length < REFERENCE_RUNS) runs.push(await bare.run())
    reference = { runs, median: median(runs, (r) => r.perSecond), callbacksReceived: bare.callbacksReceived() }
  } finally {
    await bare?.close()
    await vonage.stop()
    await stopEmbeddedPostgres()
  }
  report(reference, measured)
}

// ---- shared between Tidings and the reference ------------------------------------------------------------------

/** What the stand-in saw of one run: its 202s, its callbacks, and its CPU. */
interface StandInRun {
  accepted: number
  /** Seconds from its first to its last 202, and N − 1 intervals over them. */
  acceptedSeconds: number
  perSecond: number
  firstAcceptedAt: number
  lastAcceptedAt: number
  callbacksAcknowledged: number
  callbackAttemptsRefused: number
  /** Round trips of the callbacks sent between the first and the last 202, and of all of them. */
  callbacksWhileSending: LatencySummary
  callbacksAll: LatencySummary
  vonageCpuSeconds: number | null
  /** CPU the machine spent meanwhile on processes not this benchmark's (otherCpuFrom). */
  otherCpu: OtherCpu | null
}

interface OtherCpu {
  seconds: number
  /** A share of all cores' time over the run. */
  share: number
}

/**
 * What the machine's CPU did outside this process and its own (the server, the stand-in, an embedded PostgreSQL)
 * from now until the returned function is called: other jobs on the machine, which slow every figure.
 */
function otherCpuFrom(): () => OtherCpu | null {
  const machineBefore = machineCpu()
  const oursBefore = treeCpuSeconds(process.pid)
  return () => {
    const machineAfter = machineCpu()
    const oursAfter = treeCpuSeconds(process.pid)
    if (!machineBefore || !machineAfter || oursBefore === null || oursAfter === null) return null
    const seconds = Math.max(0, machineAfter.busySeconds - machineBefore.busySeconds - (oursAfter - oursBefore))
    return { seconds, share: seconds / Math.max(1e-9, machineAfter.totalSeconds - machineBefore.totalSeconds) }
  }
}

function standInRun(before: VonageCounts, after: VonageCounts, times: readonly CallbackTime[], cpu: { before: number | null; after: number | null }, otherCpu: OtherCpu | null): StandInRun {
  if (after.firstAcceptedAt === null || after.lastAcceptedAt === null) throw new Error('the stand-in answered no request 202')
  const accepted = after.accepted - before.accepted
  const acceptedSeconds = (after.lastAcceptedAt - after.firstAcceptedAt) / 1000
  const whileSending = times.filter((t) => t.sentAt >= after.firstAcceptedAt! && t.sentAt <= after.lastAcceptedAt!).map((t) => t.ms)
  return {
    accepted,
    acceptedSeconds,
    perSecond: acceptedSeconds > 0 ? (accepted - 1) / acceptedSeconds : 0,
    firstAcceptedAt: after.firstAcceptedAt,
    lastAcceptedAt: after.lastAcceptedAt,
    callbacksAcknowledged: after.callbacksAcknowledged - before.callbacksAcknowledged,
    callbackAttemptsRefused: after.callbackAttemptsRefused - before.callbackAttemptsRefused,
    callbacksWhileSending: summarize(whileSending),
    callbacksAll: summarize(times.map((t) => t.ms)),
    vonageCpuSeconds: cpu.before !== null && cpu.after !== null ? cpu.after - cpu.before : null,
    otherCpu,
  }
}

/** Waits until the stand-in's counts have not moved for 300 ms (at most 5 s). */
async function settled(vonage: VonageProcess): Promise<VonageCounts> {
  let last = await vonage.counts()
  for (let waited = 0; waited < 5000; waited += 300) {
    await sleep(300)
    const now = await vonage.counts()
    if (now.requests === last.requests && now.callbacksAcknowledged === last.callbacksAcknowledged && now.callbackAttemptsRefused === last.callbackAttemptsRefused) return now
    last = now
  }
  return last
}

function median<T>(values: readonly T[], key: (v: T) => number): T {
  return [...values].sort((a, b) => key(a) - key(b))[Math.floor(values.length / 2)]!
}

// ---- the reference ----------------------------------------------------------------------------------------------

interface Reference {
  runs: StandInRun[]
  /** The median run by rate. */
  median: StandInRun
  /** Callbacks the bare sink answered, over every run. */
  callbacksReceived: number
}

interface BareClient {
  /** One run of NUMBERS requests. */
  run(): Promise<StandInRun>
  callbacksReceived(): number
  close(): Promise<void>
}

/** The reference: a bare client and its callback sink, run when asked (bench/lib/viber-reference.ts). */
async function bareClient(vonage: VonageProcess): Promise<BareClient> {
  const sink = await startCallbackSink()
  // The same shape as Tidings' requests: the button's link a signed token per message on a URL of the same length.
  const key = randomBytes(32)
  const buttonBase = `${new URL(sink.url).origin}/v/`
  const message = (i: number): OutboundViber => ({
    messageId: i + 1,
    to: phone(i),
    from: SENDER,
    category: 'promotion',
    text: TEXT,
    imageUrl: null,
    button: { text: BUTTON.text, url: buttonBase + buttonToken(key, i + 1) },
    ttlSeconds: LIVE_SECONDS,
  })
  return {
    run: async () => {
      console.log(`\nreference: a bare node:http client, ${fmt(NUMBERS, 0)} requests, ${CONCURRENCY} in flight …`)
      const before = await settled(vonage)
      await vonage.reset()
      const cpuBefore = cpuSeconds(vonage.pid)
      const others = otherCpuFrom()
      await sendBare({ url: vonage.url, credentials: vonage.credentials, webhookUrl: sink.url, concurrency: CONCURRENCY, count: NUMBERS, message })
      const after = await settled(vonage)
      const m = standInRun(before, after, await vonage.callbackTimes(), { before: cpuBefore, after: cpuSeconds(vonage.pid) }, others())
      if (m.accepted !== NUMBERS || m.callbacksAcknowledged !== NUMBERS || m.callbackAttemptsRefused !== 0) {
        throw new Error(`the reference run: ${m.accepted} accepted, ${m.callbacksAcknowledged} callbacks acknowledged, ${m.callbackAttemptsRefused} refused; expected ${NUMBERS}, ${NUMBERS}, 0`)
      }
      console.log(
        `  ${fmt(m.perSecond, 0)} requests/s (${fmt(m.accepted, 0)} 202 in ${fmt(m.acceptedSeconds, 2)} s); callbacks while sending p50 ${fmt(m.callbacksWhileSending.p50Ms, 2)} ms, ` +
          `p99 ${fmt(m.callbacksWhileSending.p99Ms, 2)} ms; stand-in CPU ${m.vonageCpuSeconds === null ? '?' : `${fmt(m.vonageCpuSeconds, 1)} s`}; ${otherText(m.otherCpu)}`,
      )
      return m
    },
    callbacksReceived: () => sink.received(),
    close: () => sink.close(),
  }
}

function otherText(other: OtherCpu | null): string {
  return other === null ? 'other processes ?' : `other processes ${fmt(other.seconds, 1)} CPU s (${fmt(other.share * 100, 0)} % of the cores)`
}

// ---- Tidings ----------------------------------------------------------------------------------------------------

interface Sample {
  seconds: number
  accepted: number
  callbacksAcknowledged: number
  /** Messages at status 2, when the database was read in this sample. */
  delivered: number | null
  rssMiB: number | null
}

interface Measurement {
  dialect: Dialect
  label: string
  numbers: number
  /** How long POST /viber took to answer (the numbers read, priced and queued). */
  createSeconds: number
  /** From the POST to the stand-in's first 202. */
  firstAcceptedSeconds: number
  standIn: StandInRun
  /** From the POST to every message at status 2, and the rate of that whole. */
  deliveredSeconds: number
  endToEndPerSecond: number
  /** GET /viber/task/{id} at the end. */
  statistic: Record<string, number>
  statuses: Record<string, number>
  campaignStatus: number | null
  rssAtStartMiB: number | null
  /** The highest RSS sampled between the first and the last 202. */
  rssWhileSendingMiB: number | null
  peakRssMiB: number | null
  serverCpuSeconds: number | null
  serverCpuMicrosPerMessage: number | null
  /** PostgreSQL's processes (every process of this benchmark's tree but the server, the stand-in and this one). */
  databaseCpuSeconds: number | null
  samples: Sample[]
  profile: ProfileSummary | null
}

async function benchTidings(dialect: Dialect, vonage: VonageProcess): Promise<Measurement> {
  const name = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'
  console.log(`\nTidings on ${name}`)
  const base = await createBenchDatabase(dialect, LOG_LEVEL)
  const port = await freePort()
  // The settings that would change the run are set in case the caller's environment has them.
  const database: BenchDatabase = {
    ...base,
    env: {
      ...base.env,
      TIDINGS_PUBLIC_URL: `http://127.0.0.1:${port}`,
      TIDINGS_VIBER_URL: vonage.url,
      TIDINGS_VIBER_TOKEN: vonage.credentials,
      TIDINGS_VIBER_SIGNATURE_SECRET: vonage.signatureSecret,
      TIDINGS_VIBER_CONCURRENCY: String(CONCURRENCY),
      TIDINGS_VIBER_RATE: '0',
      TIDINGS_VIBER_PRICES: PRICES,
      TIDINGS_MODERATION: 'auto',
      TIDINGS_BOUNCE_PORT: '0',
    },
  }
  let server: TidingsServer | undefined
  let reader: StatusReader | undefined
  try {
    const account = createAccount(database, 'bench-viber')
    const tidings = (...args: string[]) => JSON.parse(run('node', ['bin/tidings.js', ...args], database.env)) as Record<string, unknown>
    tidings('accounts', 'credit', String(account.id), String(Math.max(1000, NUMBERS * 0.1)))
    const sender = tidings('viber', 'senders', 'add', '--account', String(account.id), SENDER)
    tidings('viber', 'senders', 'verify', String(sender.id))

    server = await startServer(database, `viber-setup-${dialect}`, port)
    let headers = await authorization(server.base, account)
    const started = performance.now()
    const list = await createList(server.base, headers, 'viber')
    await loadNumbers(server.base, headers, list, NUMBERS)
    console.log(`  ${fmt(NUMBERS, 0)} numbers loaded into list ${list} in ${fmt((performance.now() - started) / 1000, 1)} s`)
    await server.stop()
    server = undefined
    reader = await statusReader(database)

    const label = `Tidings, ${name}`
    console.log(`  ${label}: ${fmt(NUMBERS, 0)} numbers …`)
    // A fresh process for the campaign: its RSS and profile are the campaign's own.
    const profileName = `viber-${dialect}`
    const spawnedAt = performance.now()
    server = await startServer(database, profileName, port)
    headers = await authorization(server.base, account)
    const m = await runCampaign({ dialect, label, server, headers, list, senderId: Number(sender.id), vonage, reader })
    const startedAfterSpawn = (m.started - spawnedAt) / 1000
    await server.stop()
    server = undefined
    const profile = PROFILE ? summariseProfile(latestProfile(profileName), { from: startedAfterSpawn, to: startedAfterSpawn + m.measurement.deliveredSeconds }) : null
    return { ...m.measurement, profile }
  } finally {
    await server?.stop()
    await reader?.close()
    await database.drop()
  }
}

async function runCampaign(c: {
  dialect: Dialect
  label: string
  server: TidingsServer
  headers: Record<string, string>
  list: number
  senderId: number
  vonage: VonageProcess
  reader: StatusReader
}): Promise<{ started: number; measurement: Omit<Measurement, 'profile'> }> {
  const n = NUMBERS
  const pid = c.server.child.process.pid!
  const baseline = await settled(c.vonage)
  await c.vonage.reset()
  const rssAtStartMiB = rssMiB(pid)
  const cpuBefore = cpuSeconds(pid)
  const vonageCpuBefore = cpuSeconds(c.vonage.pid)
  const others = otherCpuFrom()
  const ownCpu = () => (process.cpuUsage().user + process.cpuUsage().system) / 1e6
  const treeBefore = treeCpuSeconds(process.pid)
  const ownBefore = ownCpu()

  const startedAt = performance.timeOrigin + performance.now()
  const started = performance.now()
  const created = await json<{ result: boolean; data: { task_id: number } }>(`${c.server.base}/viber`, {
    method: 'POST',
    headers: { ...c.headers, 'content-type': 'application/json' },
    body: JSON.stringify({
      task_name: 'bench',
      message_type: 2,
      sender_id: c.senderId,
      message_live_time: LIVE_SECONDS,
      send_date: 'now',
      address_book: c.list,
      message: TEXT,
      additional: { button: BUTTON },
    }),
  })
  const createSeconds = (performance.now() - started) / 1000
  const campaignId = created.data?.task_id
  if (created.result !== true || typeof campaignId !== 'number') throw new Error(`POST /viber answered ${JSON.stringify(created)}`)

  const samples: Sample[] = []
  let statuses = new Map<number, number>()
  let nextDbAt = 0
  let progress = { key: '', at: performance.now() }
  let nextLog = performance.now() + 5000
  let last: VonageCounts = baseline
  for (;;) {
    last = await c.vonage.counts()
    const now = performance.now()
    const seconds = (now - started) / 1000
    const accepted = last.accepted - baseline.accepted
    const acknowledged = last.callbacksAcknowledged - baseline.callbacksAcknowledged
    const rss = rssMiB(pid)
    let delivered: number | null = null
    if (acknowledged >= n || now >= nextDbAt) {
      statuses = await c.reader.statuses(campaignId)
      delivered = statuses.get(STATUS.delivered) ?? 0
      nextDbAt = now + DB_POLL_MS
    }
    samples.push({ seconds, accepted, callbacksAcknowledged: acknowledged, delivered, rssMiB: rss })
    if ((statuses.get(STATUS.delivered) ?? 0) >= n) break
    const unfinished = [STATUS.queued, STATUS.sent, STATUS.retrying].reduce((sum, s) => sum + (statuses.get(s) ?? 0), 0)
    if (delivered !== null && unfinished === 0) throw new Error(`the campaign ended with statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
    const key = `${accepted}/${acknowledged}/${delivered ?? ''}`
    if (key !== progress.key) progress = { key, at: now }
    if (now - progress.at > STALL_SECONDS * 1000) {
      throw new Error(
        `no progress for ${STALL_SECONDS} s: ${accepted} accepted, ${acknowledged} callbacks acknowledged, ${last.callbackAttemptsRefused - baseline.callbackAttemptsRefused} refused, ` +
          `statuses ${JSON.stringify(Object.fromEntries(statuses))}\nserver output:\n${c.server.child.output()}`,
      )
    }
    if (c.server.child.process.exitCode !== null) throw new Error(`the server exited (${c.server.child.process.exitCode}):\n${c.server.child.output()}`)
    if (now > nextLog) {
      console.log(`    ${fmt(seconds, 0)} s: ${fmt(accepted, 0)} accepted, ${fmt(acknowledged, 0)} callbacks acknowledged, ${fmt(statuses.get(STATUS.delivered) ?? 0, 0)} at status 2, RSS ${rss === null ? '?' : fmt(rss, 0)} MiB`)
      nextLog = now + 5000
    }
    await sleep(SAMPLE_MS)
  }
  const deliveredSeconds = (performance.now() - started) / 1000
  const cpuAfter = cpuSeconds(pid)
  const vonageCpuAfter = cpuSeconds(c.vonage.pid)
  const peak = peakRssMiB(pid)
  const otherCpu = others()
  const treeAfter = treeCpuSeconds(process.pid)
  const ownAfter = ownCpu()
  const final = await settled(c.vonage)
  const standIn = standInRun(baseline, final, await c.vonage.callbackTimes(), { before: vonageCpuBefore, after: vonageCpuAfter }, otherCpu)
  const campaignStatus = await c.reader.campaignStatus(campaignId)
  const task = await json<{ statistic: Record<string, number> }>(`${c.server.base}/viber/task/${campaignId}`, { headers: c.headers })

  const firstSecond = (standIn.firstAcceptedAt - startedAt) / 1000
  const lastSecond = (standIn.lastAcceptedAt - startedAt) / 1000
  const rssWhileSending = samples.filter((s) => s.seconds >= firstSecond && s.seconds <= lastSecond && s.rssMiB !== null).map((s) => s.rssMiB!)
  const serverCpu = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null
  const measurement: Omit<Measurement, 'profile'> = {
    dialect: c.dialect,
    label: c.label,
    numbers: n,
    createSeconds,
    firstAcceptedSeconds: firstSecond,
    standIn,
    deliveredSeconds,
    endToEndPerSecond: n / deliveredSeconds,
    statistic: task.statistic,
    statuses: Object.fromEntries(statuses),
    campaignStatus,
    rssAtStartMiB,
    rssWhileSendingMiB: rssWhileSending.length > 0 ? Math.max(...rssWhileSending) : null,
    peakRssMiB: peak,
    serverCpuSeconds: serverCpu,
    serverCpuMicrosPerMessage: serverCpu === null ? null : (serverCpu / n) * 1e6,
    databaseCpuSeconds:
      c.dialect === 'postgres' && treeBefore !== null && treeAfter !== null && serverCpu !== null && vonageCpuBefore !== null && vonageCpuAfter !== null
        ? treeAfter - treeBefore - serverCpu - (vonageCpuAfter - vonageCpuBefore) - (ownAfter - ownBefore)
        : null,
    samples,
  }
  const s = standIn
  console.log(
    `    created in ${fmt(createSeconds, 2)} s, first 202 after ${fmt(firstSecond, 2)} s; ${fmt(s.accepted, 0)} 202 in ${fmt(s.acceptedSeconds, 2)} s: ${fmt(s.perSecond, 0)} msgs/s; ` +
      `all at status 2 after ${fmt(deliveredSeconds, 2)} s; callbacks while sending p50 ${fmt(s.callbacksWhileSending.p50Ms, 2)} ms, p99 ${fmt(s.callbacksWhileSending.p99Ms, 2)} ms; ` +
      `server CPU ${serverCpu === null ? '?' : `${fmt(serverCpu, 1)} s`}, RSS ${rssAtStartMiB === null ? '?' : fmt(rssAtStartMiB, 0)} → peak ${peak === null ? '?' : fmt(peak, 0)} MiB; ${otherText(otherCpu)}`,
  )
  return { started, measurement }
}

// ---- reporting ----------------------------------------------------------------------------------------------------

function report(reference: Reference, measured: Measurement[]): void {
  const ref = reference.median
  const rows = measured.map((m) => ({ ...m, ratioToReference: m.standIn.perSecond / ref.perSecond }))
  const goals = rows.flatMap((m) => {
    const s = m.standIn
    const st = m.statistic
    return [
      {
        goal: `${m.label}: every number sent once and delivered (GET /viber/task: delivered = sent = ${m.numbers}, no errors)`,
        value: `${s.accepted} accepted, ${s.callbacksAcknowledged} callbacks acknowledged, ${s.callbackAttemptsRefused} refused; statistic ${JSON.stringify(st)}`,
        met: s.accepted === m.numbers && s.callbacksAcknowledged === m.numbers && s.callbackAttemptsRefused === 0 && st.sent === m.numbers && st.delivered === m.numbers && st.errors === 0 && st.undelivered === 0,
      },
      { goal: `${m.label}: >= ${GOAL_RATIO} × the bare client`, value: `${fmt(s.perSecond, 0)} / ${fmt(ref.perSecond, 0)} = ${fmt(m.ratioToReference, 3)}`, met: m.ratioToReference >= GOAL_RATIO },
      {
        goal: `${m.label}: p99 of callback handling while sending < ${GOAL_CALLBACK_P99_MS} ms`,
        value: `p50 ${fmt(s.callbacksWhileSending.p50Ms, 2)} ms, p99 ${fmt(s.callbacksWhileSending.p99Ms, 2)} ms over ${fmt(s.callbacksWhileSending.requests, 0)} callbacks`,
        met: s.callbacksWhileSending.requests > 0 && s.callbacksWhileSending.p99Ms < GOAL_CALLBACK_P99_MS,
      },
    ]
  })

  const date = new Date().toISOString()
  const environment = {
    ...machine(),
    numbers: NUMBERS,
    concurrency: CONCURRENCY,
    text: TEXT,
    button: BUTTON,
    tidingsLogLevel: LOG_LEVEL,
    tidingsServer: 'node bin/tidings.js serve (compiled dist/)',
    vonage: 'bench/lib/vonage-process.ts (test/helpers/vonage.ts, node:http) in its own process',
    postgres: DIALECTS.includes('postgres') ? postgresSource() : null,
    profiled: PROFILE,
  }
  const file = writeResults('viber', { date, environment, reference, results: rows, goals })

  const mib = (v: number | null) => (v === null ? '?' : fmt(v, 0))
  const others = (o: OtherCpu | null) => (o === null ? '?' : fmt(o.share * 100, 0))
  const latency = (l: LatencySummary) => `${fmt(l.p50Ms, 2)} / ${fmt(l.p99Ms, 2)} / ${fmt(l.maxMs, 1)}`
  console.log('')
  console.log(
    '| target | numbers | create (s) | first 202 (s) | first → last 202 (s) | msgs/s | all status 2 (s) | callback round trip while sending p50 / p99 / max (ms) | RSS start / sending / peak (MiB) | server CPU s (µs/msg) | PostgreSQL CPU s | stand-in CPU s | other processes (% of the cores) | ÷ reference |',
  )
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  const runs = reference.runs.map((r) => fmt(r.perSecond, 0)).join(' / ')
  console.log(
    `| bare node:http client, ${CONCURRENCY} in flight (median of ${runs}) | ${fmt(ref.accepted, 0)} | – | – | ${fmt(ref.acceptedSeconds, 2)} | ${fmt(ref.perSecond, 0)} | – | ` +
      `${latency(ref.callbacksWhileSending)} | – | – | – | ${ref.vonageCpuSeconds === null ? '?' : fmt(ref.vonageCpuSeconds, 1)} | ${others(ref.otherCpu)} | 1× |`,
  )
  for (const m of rows) {
    const s = m.standIn
    console.log(
      `| ${m.label} | ${fmt(m.numbers, 0)} | ${fmt(m.createSeconds, 2)} | ${fmt(m.firstAcceptedSeconds, 2)} | ${fmt(s.acceptedSeconds, 2)} | ${fmt(s.perSecond, 0)} | ${fmt(m.deliveredSeconds, 2)} | ` +
        `${latency(s.callbacksWhileSending)} | ${mib(m.rssAtStartMiB)} / ${mib(m.rssWhileSendingMiB)} / ${mib(m.peakRssMiB)} | ` +
        `${m.serverCpuSeconds === null ? '?' : `${fmt(m.serverCpuSeconds, 1)} (${fmt(m.serverCpuMicrosPerMessage!, 0)})`} | ${m.databaseCpuSeconds === null ? '–' : fmt(m.databaseCpuSeconds, 1)} | ${s.vonageCpuSeconds === null ? '?' : fmt(s.vonageCpuSeconds, 1)} | ` +
        `${others(s.otherCpu)} | ${fmt(m.ratioToReference, 3)}× |`,
    )
  }
  for (const m of rows) if (m.profile) printProfile(m.label, m.profile, 'the campaign (from the POST to every message at status 2)')
  printGoals(goals, environment, file)
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err)
  process.exitCode = 1
})
