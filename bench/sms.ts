// `npm run bench:sms` (issue 17, "Performance"): an SMS campaign to BENCH_NUMBERS (100,000) numbers of a list,
// sent by `node bin/tidings.js serve` over SMPP (window BENCH_SMPP_WINDOW, 100) to a local SMSC in its own
// process (bench/lib/smsc-process.ts) that acknowledges every submit_sm and sends a delivery receipt for each.
//
// Per database the script makes a fresh database, an account (CLI), credits it (`tidings accounts credit`),
// registers and approves sender ID `Bench` (`tidings sms senders add|approve`), and through the API makes the
// lists and loads their numbers (POST /sms/numbers, 10,000 a call, 2 in flight). It then starts a fresh server
// for each campaign, so its RSS and CPU profile are the campaign's, and times from the POST /sms/campaigns call:
// its answer (creation), the SMSC's submit count reaching N (the end-to-end rate), and every message of the
// campaign at status 2 (every receipt matched), read from the messages table directly. Every SAMPLE_MS the
// SMSC's counts (over IPC) and the server's RSS are read, the database every DB_POLL_MS; the RSS is reported at
// 10, 50 and 100 % of the submits and as its range over each half of them (the sawtooth of V8's collections).
//
// The rate-limit run: a campaign of BENCH_RATE_NUMBERS (20,000) to a second list with TIDINGS_SMS_RATE=BENCH_RATE
// (1,000); its steady rate is measured from 10 % to 90 % of the submits (after the limiter's first-second burst).
//
// The reference, after the targets, against the same SMSC process: the `smpp` package alone submitting N
// messages as fast as the same window allows (bench/lib/smpp-rate.ts), the median of BENCH_REFERENCE_RUNS; and,
// for context, Tidings' SMPP channel alone (one send() of N messages, no database).
//
// Environment: BENCH_NUMBERS (100000), BENCH_SMPP_WINDOW (100), BENCH_RATE_NUMBERS (20000), BENCH_RATE (1000),
// BENCH_SCENARIOS (campaign,rate), BENCH_DIALECTS (sqlite; sqlite,postgres; none: the reference only),
// BENCH_REFERENCE_RUNS (3), BENCH_STALL_SECONDS (30), BENCH_LOG_LEVEL (warn), BENCH_PROFILE=1,
// BENCH_SKIP_BUILD=1, TIDINGS_TEST_DATABASE_URL.
import { fmt, machine, positiveNumber, writeResults, listFromEnv, printGoals } from './lib/env.js'
import { cpuSeconds, rssMiB } from './lib/proc-stats.js'
import { latestProfile, printProfile, summariseProfile, type ProfileSummary } from './lib/cpu-profile.js'
import { buildUnlessSkipped, peakRssMiB, PROFILE, run } from './lib/processes.js'
import { loadNumbers, phone } from './lib/phone-lists.js'
import { json } from './lib/http.js'
import { startSmscProcess, type SmscCounts, type SmscProcess } from './lib/smsc-child.js'
import { channelSubmitRate, packageSubmitRate } from './lib/smpp-rate.js'
import { statusReader, type StatusReader } from './lib/message-statuses.js'
import {
  authorization,
  createAccount,
  createBenchDatabase,
  createList,
  postgresSource,
  startServer,
  stopEmbeddedPostgres,
  type BenchDatabase,
  type Dialect,
  type TidingsServer,
} from './lib/tidings.js'

const NUMBERS = Math.max(1, Math.round(positiveNumber('BENCH_NUMBERS', 100_000)))
const WINDOW = Math.max(1, Math.round(positiveNumber('BENCH_SMPP_WINDOW', 100)))
const RATE_NUMBERS = Math.max(1, Math.round(positiveNumber('BENCH_RATE_NUMBERS', 20_000)))
const RATE = Math.max(1, positiveNumber('BENCH_RATE', 1000))
const REFERENCE_RUNS = Math.max(1, Math.round(positiveNumber('BENCH_REFERENCE_RUNS', 3)))
const STALL_SECONDS = positiveNumber('BENCH_STALL_SECONDS', 30)
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || 'warn'
const DIALECTS = listFromEnv<Dialect>('BENCH_DIALECTS', ['sqlite', 'postgres'], ['sqlite'])
type Scenario = 'campaign' | 'rate'
const SCENARIOS = listFromEnv<Scenario>('BENCH_SCENARIOS', ['campaign', 'rate'], ['campaign', 'rate'])

/** Numbers go to the API 10,000 a call (the most POST /sms/numbers takes), 2 calls in flight. */
/** The SMSC's counts and the server's RSS are read this often (100 ms: ±0.6 % on the 16 s of the rate window). */
const SAMPLE_MS = 100
/** The messages table is counted this often, and every SAMPLE_MS once the SMSC has every receipt acknowledged. */
const DB_POLL_MS = 250
/** The RSS is recorded as the SMSC's count passes these shares of the submits. */
const CHECKPOINTS = [0.1, 0.5, 1]
/**
 * "Flat" compares the RSS over the first and the second half of the submits: V8 lets garbage pile up and frees
 * it in a few large collections, so the RSS is a sawtooth (about 240 → 350 MiB every 5 s in a 100,000-number
 * run) and one sample, at 10 % or 100 %, lands anywhere on it.
 */
const HALVES = [[0.1, 0.55], [0.55, 1]] as const
/** Steady rates are measured between these shares, leaving out the start (the limiter's burst) and the tail. */
const STEADY = [0.1, 0.9] as const
const SENDER = 'Bench'
/** One GSM-7 part (71 characters). */
const BODY = 'Your order 4711 ships today. Track it: shop.example.com/t Example Shop'
/** TIDINGS_SMS_PRICES as set for the run (a part costs 0.02); the account is credited far more than the campaigns cost. */
const PRICES = 'default=0.02'
const STATUS = { queued: 0, sent: 1, delivered: 2, retrying: 7 }

const GOAL_RATIO = 0.5
const RATE_TOLERANCE = 0.05
/** "Flat": the highest RSS over the second half of the submits is at most this much above that over the first half. */
const FLAT_GROWTH = 0.1


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// ---- main -----------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  console.log(
    `SMS campaign of ${fmt(NUMBERS, 0)} numbers, SMPP window ${WINDOW}; rate-limit run ${fmt(RATE_NUMBERS, 0)} numbers at ${fmt(RATE, 0)}/s; ` +
      `targets: ${DIALECTS.flatMap((d) => SCENARIOS.map((s) => `${d}/${s}`)).join(', ') || 'none'}`,
  )
  if (DIALECTS.length > 0) buildUnlessSkipped()
  const smsc = await startSmscProcess({ ...process.env, BENCH_SMSC_RECEIPTS: 'after', BENCH_SMSC_DELAY_MS: '0' })
  const measured: Measurement[] = []
  let references: References
  try {
    for (const dialect of DIALECTS) measured.push(...(await benchTidings(dialect, smsc)))
    references = await measureReferences(smsc)
  } finally {
    await smsc.stop()
    await stopEmbeddedPostgres()
  }
  report(references, measured)
}

// ---- the reference ----------------------------------------------------------------------------------------------

interface References {
  /** The smpp package alone, submit_sm/s: the median counts. */
  packageRuns: number[]
  packagePerSecond: number
  /** Tidings' SMPP channel alone (bench/lib/smpp-rate.ts channelSubmitRate), for context. */
  channelPerSecond: number
  smscCpuSecondsPerRun: number | null
}

async function measureReferences(smsc: SmscProcess): Promise<References> {
  console.log(`\nreference: the smpp package alone, ${fmt(NUMBERS, 0)} submit_sm, window ${WINDOW} …`)
  const packageRuns: number[] = []
  const smscCpu: number[] = []
  for (let i = 0; i < REFERENCE_RUNS; i++) {
    const before = cpuSeconds(smsc.pid)
    packageRuns.push(await packageSubmitRate(smsc.url, WINDOW, NUMBERS))
    const after = cpuSeconds(smsc.pid)
    if (before !== null && after !== null) smscCpu.push(after - before)
    // Its receipts answered before the next run binds (those in flight at its unbind go to the next bind).
    await settled(smsc)
  }
  const packagePerSecond = median(packageRuns)
  console.log(`  ${fmt(packagePerSecond, 0)} submit_sm/s (median of ${packageRuns.map((r) => fmt(r, 0)).join(', ')})`)
  const channel = await channelSubmitRate(smsc.url, WINDOW, NUMBERS)
  await settled(smsc)
  console.log(`  for context, Tidings' SMPP channel alone (no database): ${fmt(channel.rate, 0)} messages/s`)
  return { packageRuns, packagePerSecond, channelPerSecond: channel.rate, smscCpuSecondsPerRun: smscCpu.length > 0 ? median(smscCpu) : null }
}

/** Waits until the SMSC's counts have not moved for 300 ms (at most 5 s). */
async function settled(smsc: SmscProcess): Promise<SmscCounts> {
  let last = await smsc.counts()
  for (let waited = 0; waited < 5000; waited += 300) {
    await sleep(300)
    const now = await smsc.counts()
    if (now.submits === last.submits && now.receiptsAcknowledged === last.receiptsAcknowledged) return now
    last = now
  }
  return last
}

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
}

// ---- Tidings ----------------------------------------------------------------------------------------------------

interface Sample {
  seconds: number
  submits: number
  receiptsAcknowledged: number
  /** Messages at status 2, when the database was read in this sample. */
  delivered: number | null
  rssMiB: number | null
}

interface Measurement {
  dialect: Dialect
  scenario: Scenario
  label: string
  numbers: number
  /** TIDINGS_SMS_RATE (0: none). */
  rateLimit: number
  /** How long POST /sms/campaigns took to answer. */
  createSeconds: number
  /** From the POST to the SMSC's count reaching N. */
  submitSeconds: number
  submitsPerSecond: number
  /** Submits a second between STEADY[0] and STEADY[1] of them. */
  steadySubmitsPerSecond: number
  /** From the POST to every message at status 2. */
  deliveredSeconds: number
  receiptsMatchedPerSecond: number
  steadyDeliveredPerSecond: number | null
  submits: number
  receiptsAcknowledged: number
  statuses: Record<string, number>
  campaignStatus: number | null
  rssAtStartMiB: number | null
  rssAt: { share: number; rssMiB: number | null; seconds: number }[]
  /** Lowest and highest RSS sampled while the first and the second half of the submits went out (10–55 %, 55–100 %). */
  rssHalves: { from: number; to: number; minMiB: number | null; maxMiB: number | null }[]
  peakRssMiB: number | null
  serverCpuSeconds: number | null
  serverCpuMicrosPerMessage: number | null
  smscCpuSeconds: number | null
  samples: Sample[]
  profile: ProfileSummary | null
}

async function benchTidings(dialect: Dialect, smsc: SmscProcess): Promise<Measurement[]> {
  const name = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'
  console.log(`\nTidings on ${name}`)
  const base = await createBenchDatabase(dialect, LOG_LEVEL)
  // The settings that would change the run are set in case the caller's environment has them.
  const database: BenchDatabase = {
    ...base,
    env: {
      ...base.env,
      TIDINGS_SMPP_URL: smsc.url,
      TIDINGS_SMPP_WINDOW: String(WINDOW),
      TIDINGS_SMS_RATE: '0',
      TIDINGS_SMS_PRICES: PRICES,
      TIDINGS_MODERATION: 'auto',
      TIDINGS_BOUNCE_PORT: '0',
    },
  }
  let server: TidingsServer | undefined
  let reader: StatusReader | undefined
  try {
    const account = createAccount(database, 'bench-sms')
    const tidings = (...args: string[]) => JSON.parse(run('node', ['bin/tidings.js', ...args], database.env)) as Record<string, unknown>
    tidings('accounts', 'credit', String(account.id), String(Math.max(1000, (NUMBERS + RATE_NUMBERS) * 0.1)))
    const sender = tidings('sms', 'senders', 'add', '--account', String(account.id), SENDER)
    tidings('sms', 'senders', 'approve', String(sender.id))

    server = await startServer(database, `sms-setup-${dialect}`)
    let headers = await authorization(server.base, account)
    const lists: Partial<Record<Scenario, { id: number; numbers: number }>> = {}
    for (const scenario of SCENARIOS) {
      const numbers = scenario === 'campaign' ? NUMBERS : RATE_NUMBERS
      const started = performance.now()
      const id = await createList(server.base, headers, `sms ${scenario}`)
      await loadNumbers(server.base, headers, id, numbers)
      lists[scenario] = { id, numbers }
      console.log(`  ${fmt(numbers, 0)} numbers loaded into list ${id} in ${fmt((performance.now() - started) / 1000, 1)} s`)
    }
    await server.stop()
    server = undefined
    reader = await statusReader(database)

    const out: Measurement[] = []
    for (const scenario of SCENARIOS) {
      const rateLimit = scenario === 'rate' ? RATE : 0
      const label = `Tidings, ${name}${rateLimit ? `, TIDINGS_SMS_RATE=${fmt(rateLimit, 0)}` : ''}`
      console.log(`  ${label}: ${fmt(lists[scenario]!.numbers, 0)} numbers …`)
      // A fresh process per campaign: its RSS and profile are the campaign's own.
      const profileName = `sms-${dialect}-${scenario}`
      const spawnedAt = performance.now()
      server = await startServer({ ...database, env: { ...database.env, TIDINGS_SMS_RATE: String(rateLimit) } }, profileName)
      headers = await authorization(server.base, account)
      const m = await runCampaign({ dialect, scenario, label, rateLimit, server, headers, list: lists[scenario]!, smsc, reader })
      const startedAfterSpawn = (m.started - spawnedAt) / 1000
      await server.stop()
      server = undefined
      const profile = PROFILE ? summariseProfile(latestProfile(profileName), { from: startedAfterSpawn, to: startedAfterSpawn + m.measurement.deliveredSeconds }) : null
      out.push({ ...m.measurement, profile })
    }
    return out
  } finally {
    await server?.stop()
    await reader?.close()
    await database.drop()
  }
}

async function runCampaign(c: {
  dialect: Dialect
  scenario: Scenario
  label: string
  rateLimit: number
  server: TidingsServer
  headers: Record<string, string>
  list: { id: number; numbers: number }
  smsc: SmscProcess
  reader: StatusReader
}): Promise<{ started: number; measurement: Omit<Measurement, 'profile'> }> {
  const n = c.list.numbers
  const pid = c.server.child.process.pid!
  const baseline = await settled(c.smsc)
  const rssAtStartMiB = rssMiB(pid)
  const cpuBefore = cpuSeconds(pid)
  const smscCpuBefore = cpuSeconds(c.smsc.pid)

  const started = performance.now()
  const created = await json<{ result: boolean; campaign_id: number }>(`${c.server.base}/sms/campaigns`, {
    method: 'POST',
    headers: { ...c.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ sender: SENDER, addressBookId: c.list.id, body: BODY }),
  })
  const createSeconds = (performance.now() - started) / 1000
  if (typeof created.campaign_id !== 'number') throw new Error(`POST /sms/campaigns answered ${JSON.stringify(created)}`)
  const campaignId = created.campaign_id

  const samples: Sample[] = []
  const rssAt: Measurement['rssAt'] = []
  let statuses = new Map<number, number>()
  let nextDbAt = 0
  let progress = { key: '', at: performance.now() }
  let nextLog = performance.now() + 5000
  for (;;) {
    const counts = await c.smsc.counts()
    const now = performance.now()
    const seconds = (now - started) / 1000
    const submits = counts.submits - baseline.submits
    const acknowledged = counts.receiptsAcknowledged - baseline.receiptsAcknowledged
    const rss = rssMiB(pid)
    let delivered: number | null = null
    if (acknowledged >= n || now >= nextDbAt) {
      statuses = await c.reader.statuses(campaignId)
      delivered = statuses.get(STATUS.delivered) ?? 0
      nextDbAt = now + DB_POLL_MS
    }
    for (const share of CHECKPOINTS) {
      if (submits >= Math.round(n * share) && !rssAt.some((r) => r.share === share)) rssAt.push({ share, rssMiB: rss, seconds })
    }
    samples.push({ seconds, submits, receiptsAcknowledged: acknowledged, delivered, rssMiB: rss })
    if ((statuses.get(STATUS.delivered) ?? 0) >= n) break
    const unfinished = [STATUS.queued, STATUS.sent, STATUS.retrying].reduce((sum, s) => sum + (statuses.get(s) ?? 0), 0)
    if (delivered !== null && unfinished === 0) throw new Error(`the campaign ended with statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
    const key = `${submits}/${acknowledged}/${delivered ?? ''}`
    if (key !== progress.key) progress = { key, at: now }
    if (now - progress.at > STALL_SECONDS * 1000) {
      throw new Error(`no progress for ${STALL_SECONDS} s: ${submits} submits, ${acknowledged} receipts acknowledged, statuses ${JSON.stringify(Object.fromEntries(statuses))}\nserver output:\n${c.server.child.output()}`)
    }
    if (c.server.child.process.exitCode !== null) throw new Error(`the server exited (${c.server.child.process.exitCode}):\n${c.server.child.output()}`)
    if (now > nextLog) {
      console.log(`    ${fmt(seconds, 0)} s: ${fmt(submits, 0)} submitted, ${fmt(acknowledged, 0)} receipts acknowledged, ${fmt(statuses.get(STATUS.delivered) ?? 0, 0)} at status 2, RSS ${rss === null ? '?' : fmt(rss, 0)} MiB`)
      nextLog = now + 5000
    }
    await sleep(SAMPLE_MS)
  }
  const deliveredSeconds = (performance.now() - started) / 1000
  const cpuAfter = cpuSeconds(pid)
  const smscCpuAfter = cpuSeconds(c.smsc.pid)
  const peak = peakRssMiB(pid)
  const final = await settled(c.smsc)
  const campaignStatus = await c.reader.campaignStatus(campaignId)

  const submitSeconds = crossing(samples, (s) => s.submits, n) ?? deliveredSeconds
  const steady = (value: (s: Sample) => number | null) => {
    const from = crossing(samples, value, n * STEADY[0])
    const to = crossing(samples, value, n * STEADY[1])
    return from === null || to === null || to <= from ? null : (n * (STEADY[1] - STEADY[0])) / (to - from)
  }
  const serverCpu = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null
  const measurement: Omit<Measurement, 'profile'> = {
    dialect: c.dialect,
    scenario: c.scenario,
    label: c.label,
    numbers: n,
    rateLimit: c.rateLimit,
    createSeconds,
    submitSeconds,
    submitsPerSecond: n / submitSeconds,
    steadySubmitsPerSecond: steady((s) => s.submits) ?? n / submitSeconds,
    deliveredSeconds,
    receiptsMatchedPerSecond: n / deliveredSeconds,
    steadyDeliveredPerSecond: steady((s) => s.delivered),
    submits: final.submits - baseline.submits,
    receiptsAcknowledged: final.receiptsAcknowledged - baseline.receiptsAcknowledged,
    statuses: Object.fromEntries(statuses),
    campaignStatus,
    rssAtStartMiB,
    rssAt,
    rssHalves: HALVES.map(([from, to]) => rssBetween(samples, n * from, n * to, from, to)),
    peakRssMiB: peak,
    serverCpuSeconds: serverCpu,
    serverCpuMicrosPerMessage: serverCpu === null ? null : (serverCpu / n) * 1e6,
    smscCpuSeconds: smscCpuBefore !== null && smscCpuAfter !== null ? smscCpuAfter - smscCpuBefore : null,
    samples,
  }
  const m = measurement
  console.log(
    `    created in ${fmt(createSeconds, 2)} s; ${fmt(m.submits, 0)} submits in ${fmt(submitSeconds, 2)} s: ${fmt(m.submitsPerSecond, 0)} msgs/s end to end ` +
      `(${fmt(m.steadySubmitsPerSecond, 0)}/s from ${STEADY[0] * 100} to ${STEADY[1] * 100} %); all at status 2 after ${fmt(deliveredSeconds, 2)} s ` +
      `(${fmt(m.receiptsMatchedPerSecond, 0)} receipts matched/s); server CPU ${serverCpu === null ? '?' : `${fmt(serverCpu, 1)} s`}, peak RSS ${peak === null ? '?' : fmt(peak, 0)} MiB`,
  )
  return { started, measurement }
}

/** The RSS sampled while the SMSC's count was between `low` and `high`. */
function rssBetween(samples: readonly Sample[], low: number, high: number, from: number, to: number): Measurement['rssHalves'][number] {
  const values = samples.filter((s) => s.submits >= low && s.submits <= high && s.rssMiB !== null).map((s) => s.rssMiB!)
  return { from, to, minMiB: values.length > 0 ? Math.min(...values) : null, maxMiB: values.length > 0 ? Math.max(...values) : null }
}

/** When `value` first reached `target`, linearly interpolated between the samples around it (null if never). */
function crossing(samples: readonly Sample[], value: (s: Sample) => number | null, target: number): number | null {
  let previous: { seconds: number; value: number } = { seconds: 0, value: 0 }
  for (const s of samples) {
    const v = value(s)
    if (v === null) continue
    if (v >= target) {
      if (v === previous.value) return s.seconds
      return previous.seconds + ((target - previous.value) / (v - previous.value)) * (s.seconds - previous.seconds)
    }
    previous = { seconds: s.seconds, value: v }
  }
  return null
}

// ---- reporting ----------------------------------------------------------------------------------------------------

function report(references: References, measured: Measurement[]): void {
  const reference = references.packagePerSecond
  const rows = measured.map((m) => ({ ...m, ratioToReference: m.submitsPerSecond / reference, receiptsRatioToReference: m.receiptsMatchedPerSecond / reference }))
  const goals = rows.flatMap((m) => {
    const out = [
      {
        goal: `${m.label}: every number submitted once, its receipt acknowledged, status 2`,
        value: `${m.submits} submits, ${m.receiptsAcknowledged} receipts acknowledged, statuses ${JSON.stringify(m.statuses)}`,
        met: m.submits === m.numbers && m.receiptsAcknowledged === m.numbers && m.statuses[String(STATUS.delivered)] === m.numbers,
      },
    ]
    if (m.scenario === 'campaign') {
      const [first, second] = m.rssHalves.map((h) => h.maxMiB)
      out.push(
        { goal: `${m.label}: end to end >= ${GOAL_RATIO} × the smpp package alone`, value: `${fmt(m.submitsPerSecond, 0)} / ${fmt(reference, 0)} = ${fmt(m.ratioToReference, 3)}`, met: m.ratioToReference >= GOAL_RATIO },
        {
          goal: `${m.label}: receipts matched at the rate of the submits (within ${RATE_TOLERANCE * 100} %)`,
          value: `${fmt(m.receiptsMatchedPerSecond, 0)} / ${fmt(m.submitsPerSecond, 0)}; the last matched ${fmt(m.deliveredSeconds - m.submitSeconds, 2)} s after the last submit`,
          met: m.receiptsMatchedPerSecond >= m.submitsPerSecond * (1 - RATE_TOLERANCE),
        },
        {
          goal: `${m.label}: receipts matched >= ${GOAL_RATIO} × the smpp package alone`,
          value: `${fmt(m.receiptsMatchedPerSecond, 0)} / ${fmt(reference, 0)} = ${fmt(m.receiptsRatioToReference, 3)}`,
          met: m.receiptsRatioToReference >= GOAL_RATIO,
        },
        {
          goal: `${m.label}: RSS flat (its highest over 55–100 % of the submits at most ${FLAT_GROWTH * 100} % above that over 10–55 %)`,
          value: m.rssHalves.map((h) => `${Math.round(h.from * 100)}–${Math.round(h.to * 100)} %: ${h.minMiB === null ? '?' : fmt(h.minMiB, 0)}–${h.maxMiB === null ? '?' : fmt(h.maxMiB, 0)} MiB`).join('; '),
          met: first != null && second != null && second <= first * (1 + FLAT_GROWTH),
        },
      )
    } else {
      out.push({
        goal: `${m.label}: steady rate within ±${RATE_TOLERANCE * 100} % of ${fmt(m.rateLimit, 0)}/s`,
        value: `${fmt(m.steadySubmitsPerSecond, 1)}/s (${fmt((m.steadySubmitsPerSecond / m.rateLimit - 1) * 100, 2)} %)`,
        met: Math.abs(m.steadySubmitsPerSecond / m.rateLimit - 1) <= RATE_TOLERANCE,
      })
    }
    return out
  })

  const date = new Date().toISOString()
  const environment = {
    ...machine(),
    numbers: NUMBERS,
    window: WINDOW,
    rateNumbers: RATE_NUMBERS,
    rate: RATE,
    body: BODY,
    tidingsLogLevel: LOG_LEVEL,
    tidingsServer: 'node bin/tidings.js serve (compiled dist/)',
    smsc: 'bench/lib/smsc-process.ts (test/helpers/smsc.ts, smpp package server) in its own process',
    postgres: DIALECTS.includes('postgres') ? postgresSource() : null,
    profiled: PROFILE,
  }
  const file = writeResults('sms', { date, environment, references, results: rows, goals })

  console.log('')
  console.log(
    '| target | numbers | create (s) | submits (s) | msgs/s end to end | steady msgs/s (10–90 %) | all status 2 (s) | receipts matched/s | RSS at 10 / 50 / 100 % (MiB) | RSS over 10–55 % / 55–100 % (MiB) | peak RSS (MiB) | server CPU s (µs/msg) | SMSC CPU s | ÷ reference |',
  )
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  console.log(
    `| smpp package alone, window ${WINDOW} (median of ${references.packageRuns.length}) | ${fmt(NUMBERS, 0)} | – | ${fmt(NUMBERS / reference, 2)} | ${fmt(reference, 0)} | – | – | – | – | – | – | – | ` +
      `${references.smscCpuSecondsPerRun === null ? '?' : fmt(references.smscCpuSecondsPerRun, 1)} | 1× |`,
  )
  console.log(`| Tidings' SMPP channel alone, no database (context) | ${fmt(NUMBERS, 0)} | – | ${fmt(NUMBERS / references.channelPerSecond, 2)} | ${fmt(references.channelPerSecond, 0)} | – | – | – | – | – | – | – | – | ${fmt(references.channelPerSecond / reference, 2)}× |`)
  for (const m of rows) {
    const rss = m.rssAt.map((r) => (r.rssMiB === null ? '?' : fmt(r.rssMiB, 0))).join(' / ')
    const halves = m.rssHalves.map((h) => (h.minMiB === null ? '?' : `${fmt(h.minMiB, 0)}–${fmt(h.maxMiB!, 0)}`)).join(' / ')
    console.log(
      `| ${m.label} | ${fmt(m.numbers, 0)} | ${fmt(m.createSeconds, 2)} | ${fmt(m.submitSeconds, 2)} | ${fmt(m.submitsPerSecond, 0)} | ${fmt(m.steadySubmitsPerSecond, m.rateLimit ? 1 : 0)} | ` +
        `${fmt(m.deliveredSeconds, 2)} | ${fmt(m.receiptsMatchedPerSecond, 0)} | ${rss} | ${halves} | ${m.peakRssMiB === null ? '?' : fmt(m.peakRssMiB, 0)} | ` +
        `${m.serverCpuSeconds === null ? '?' : `${fmt(m.serverCpuSeconds, 1)} (${fmt(m.serverCpuMicrosPerMessage!, 0)})`} | ${m.smscCpuSeconds === null ? '?' : fmt(m.smscCpuSeconds, 1)} | ` +
        `${m.rateLimit ? '–' : `${fmt(m.ratioToReference, 3)}×`} |`,
    )
  }
  for (const m of rows) if (m.profile) printProfile(m.label, m.profile, 'the campaign (from the POST to every message at status 2)')
  printGoals(goals, environment, file)
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err)
  process.exitCode = 1
})
