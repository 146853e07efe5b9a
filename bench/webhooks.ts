// `npm run bench:webhooks`: webhook deliveries to a local receiver, under two loads, each on a fresh SQLite
// database with `node bin/tidings.js serve` in a child process (TIDINGS_WEBHOOK_ALLOW_PRIVATE=1):
//
// - one-url: BENCH_EVENTS (100,000) events for one URL. One account subscribes /hook/0 to `new_emails` and adds
//   that many contacts to a list, BENCH_ADD_BATCH (10,000) per POST /addressbooks/{id}/emails, BENCH_ADD_CONCURRENCY
//   (2) in flight. Each new contact is one event.
// - many-urls: BENCH_URLS (100) URLs with BENCH_EVENTS_PER_URL (100) events each. Every URL subscribed to an
//   action gets all of the account's events of that action, so the URLs belong to as many accounts (made with
//   `tidings accounts create`), each subscribing its own /hook/<n> and adding its own contacts.
//
// The receiver (bench/lib/webhook-receiver.ts) parses each body with qs, checks a sample of the Standard Webhooks
// signatures, counts events by id (duplicates, order per URL) and notes when each arrived. It runs in a child
// process (BENCH_RECEIVER=child, the default) or in this process (BENCH_RECEIVER=process).
//
// The clock runs from the first add call until the receiver has answered the request holding the last event.
// After the run the events' creation times (events.created_at, epoch ms) are read from the database file, and
// the added latency of each event is its arrival time at the receiver minus its creation time (the same machine's
// clock). The server is restarted between the setup (accounts, lists, webhooks, secrets) and the run, so its peak
// RSS and CPU profile belong to the run; its CPU time (/proc/<pid>/stat) is read at both ends of the run, and so is
// the machine's (/proc/stat), to show how much CPU other jobs took meanwhile. After the one-url run, single
// contacts are added one at a time to the idle server: their latency is the dispatcher's idle poll (250 ms).
//
// Environment: BENCH_EVENTS (100000), BENCH_URLS (100), BENCH_EVENTS_PER_URL (100), BENCH_SCENARIOS
// (one-url,many-urls), BENCH_RECEIVER (child), BENCH_ADD_BATCH (10000), BENCH_ADD_CONCURRENCY (2),
// BENCH_VERIFY_EVERY (10: check the signature of every 10th request, and of each URL's first),
// BENCH_IDLE_PROBES (20), BENCH_STALL_SECONDS (60), BENCH_LOG_LEVEL (warn), BENCH_PROFILE=1 (the run's server under --cpu-prof, with a
// summary of where its CPU went), BENCH_SKIP_BUILD=1.
import { spawn, spawnSync } from 'node:child_process'
import SQLite from 'better-sqlite3'
import { fmt, machine, positiveNumber, ROOT, writeResults } from './lib/env.js'
import { buildUnlessSkipped, peakRssMiB, PROFILE } from './lib/processes.js'
import { json, summarize } from './lib/http.js'
import { addEmailsBody } from './lib/contacts.js'
import { cpuSeconds, load1, machineCpu, rssMiB } from './lib/proc-stats.js'
import { latestProfile, printProfile, summariseProfile, type ProfileSummary } from './lib/cpu-profile.js'
import { startWebhookReceiver, type ReceivedRequests, type ReceiverCounts, type ReceiverPlace, type WebhookReceiver } from './lib/webhook-receiver.js'
import { authorization, createBenchDatabase, createList, startServer, type BenchAccount, type BenchDatabase, type TidingsServer } from './lib/tidings.js'

const EVENTS = Math.max(1, Math.round(positiveNumber('BENCH_EVENTS', 100_000)))
const URLS = Math.max(1, Math.round(positiveNumber('BENCH_URLS', 100)))
const EVENTS_PER_URL = Math.max(1, Math.round(positiveNumber('BENCH_EVENTS_PER_URL', 100)))
/** The API takes at most 10,000 contacts a call. */
const ADD_BATCH = Math.min(10_000, Math.max(1, Math.round(positiveNumber('BENCH_ADD_BATCH', 10_000))))
const ADD_CONCURRENCY = Math.max(1, Math.round(positiveNumber('BENCH_ADD_CONCURRENCY', 2)))
const VERIFY_EVERY = Math.round(positiveNumber('BENCH_VERIFY_EVERY', 10))
const STALL_SECONDS = positiveNumber('BENCH_STALL_SECONDS', 60)
const IDLE_PROBES = Math.round(positiveNumber('BENCH_IDLE_PROBES', 20))
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || 'warn'
const RECEIVER = (process.env.BENCH_RECEIVER || 'child') as ReceiverPlace
if (RECEIVER !== 'child' && RECEIVER !== 'process') throw new Error(`BENCH_RECEIVER must be child or process, got ${RECEIVER}`)
type ScenarioName = 'one-url' | 'many-urls'
const SCENARIOS = (process.env.BENCH_SCENARIOS || 'one-url,many-urls').split(',').map((s) => s.trim()) as ScenarioName[]
for (const s of SCENARIOS) if (s !== 'one-url' && s !== 'many-urls') throw new Error(`unknown BENCH_SCENARIOS entry: ${s} (known: one-url, many-urls)`)

const ACTION = 'new_emails'
/** The issue's goal: 100,000 events to one URL in at most 20 s, i.e. 5,000 events/s. */
const GOAL_EVENTS = 100_000
const GOAL_SECONDS = 20
const GOAL_PER_SECOND = GOAL_EVENTS / GOAL_SECONDS
/** docs/webhooks.md: at most 100 events and 1000 form fields a request. */
const MAX_EVENTS_PER_REQUEST = 100
const MAX_FIELDS_PER_REQUEST = 1000
/** `tidings accounts create` takes about a second, most of it Node starting: two at a time on two cores. */
const ACCOUNT_CONCURRENCY = 2
/** Setup calls (tokens, lists, webhooks, secrets) in flight. */
const SETUP_CONCURRENCY = 4
const POLL_MS = 100
const RSS_SAMPLE_MS = 250
const PREFIX = 'w'
let source: { commit: string | null; srcChanged: boolean | null; built: boolean } = { commit: null, srcChanged: null, built: false }

interface Scenario {
  name: ScenarioName
  label: string
  urls: number
  eventsPerUrl: number
}

function scenario(name: ScenarioName): Scenario {
  return name === 'one-url'
    ? { name, label: `${fmt(EVENTS, 0)} events → 1 URL`, urls: 1, eventsPerUrl: EVENTS }
    : { name, label: `${fmt(URLS * EVENTS_PER_URL, 0)} events → ${URLS} URLs`, urls: URLS, eventsPerUrl: EVENTS_PER_URL }
}

async function main(): Promise<void> {
  console.log(
    `scenarios: ${SCENARIOS.map((s) => scenario(s).label).join('; ')}; receiver in ${RECEIVER === 'child' ? 'a child process' : 'this process'}; ` +
      `${fmt(ADD_BATCH, 0)} contacts per add call, ${ADD_CONCURRENCY} in flight; load average ${fmt(load1(), 2)}`,
  )
  source = { ...sourceVersion(), built: process.env.BENCH_SKIP_BUILD !== '1' }
  buildUnlessSkipped()
  const measured: Measurement[] = []
  for (const name of SCENARIOS) measured.push(await runScenario(scenario(name)))
  report(measured)
}

// ---- one scenario ---------------------------------------------------------------------------------------------

interface Hook {
  account: BenchAccount
  /** The receiver's path for this account's URL. */
  path: string
  list: number
  headers: Record<string, string>
}

interface AddCall {
  hook: Hook
  from: number
  to: number
  body: string
  /** Epoch ms, when it was answered. */
  answeredMs: number
}

interface Latency {
  p50Ms: number
  p90Ms: number
  p99Ms: number
  maxMs: number
  meanMs: number
}

interface Measurement {
  scenario: ScenarioName
  label: string
  urls: number
  events: number
  receiver: ReceiverPlace
  /** From the first add call to the receiver's answer to the request holding the last event. */
  seconds: number | null
  eventsPerSecond: number | null
  /** From the first add call to the last add call's answer. */
  addSeconds: number
  addCalls: number
  /** Events that had arrived when the last add call was answered. */
  deliveredWhileAdding: number
  /** Receiver's arrival minus events.created_at (the add call's transaction start). */
  latency: Latency | null
  /** Receiver's arrival minus the answer to the add call that made the event (its commit, or just after). */
  latencyAfterAnswer: Latency | null
  /** The same, for single events added one at a time to an idle server after the run (one-url only). */
  idleLatency: Latency | null
  idleProbes: number
  receiverCounts: ReceiverCounts
  requests: number
  eventsPerRequest: number
  lost: number
  /** Rows in the database after the run. */
  database: { events: number; deliveries: Record<string, number>; failedAttempts: number; attemptErrors: string[] }
  peakRssMiB: number | null
  rssSampledPeakMiB: number | null
  serverCpuSeconds: number | null
  serverCpuMicrosPerEvent: number | null
  receiverCpuMicrosPerEvent: number
  /** This process's CPU over the run when the receiver is in a child (0 otherwise: it is the receiver's). */
  benchCpuSeconds: number
  machine: { load1Before: number; load1After: number; busyCores: number | null; otherProcessesCores: number | null; stealCores: number | null }
  deliveredPerSecond: number[]
  profile: ProfileSummary | null
  /**
   * Receiver-side times per request (means): reading to answering, and, for the requests after the last add
   * call's answer, the gap since the answer to the previous request to the same URL (the sender's turnaround).
   */
  requestTimes: { handlingMs: number; afterAdds: { requests: number; gapMs: number; handlingMs: number } | null }
  /** The same profile from the last add call's answer to the end: the deliveries alone. */
  profileAfterAdds: ProfileSummary | null
}

async function runScenario(s: Scenario): Promise<Measurement> {
  const total = s.urls * s.eventsPerUrl
  console.log(`\n${s.label}`)
  const base = await createBenchDatabase('sqlite', LOG_LEVEL)
  // The settings that could hold deliveries back are set to their defaults in case the caller's environment has them.
  const database: BenchDatabase = {
    ...base,
    env: { ...base.env, TIDINGS_WEBHOOK_ALLOW_PRIVATE: '1', TIDINGS_WEBHOOK_TIMEOUT: '10', TIDINGS_WEBHOOK_RETRY_HOURS: '24', TIDINGS_BOUNCE_PORT: '0' },
  }
  const receiver = await startWebhookReceiver(RECEIVER, { verifyEvery: VERIFY_EVERY, action: ACTION })
  let server: TidingsServer | undefined
  try {
    let started = performance.now()
    const accounts = await createAccounts(database, s.urls)
    console.log(`  ${s.urls} account${s.urls > 1 ? 's' : ''} created in ${fmt((performance.now() - started) / 1000, 1)} s`)

    server = await startServer(database, `webhooks-setup-${s.name}`)
    started = performance.now()
    const setupBase = server.base
    const hooks = await inParallel(accounts, SETUP_CONCURRENCY, async (account, n): Promise<Hook> => {
      const headers = await authorization(setupBase, account)
      const path = `/hook/${n}`
      const list = await createList(setupBase, headers, `webhooks ${n}`)
      await subscribe(setupBase, headers, `${receiver.base}${path}`)
      const secret = await json<{ success: boolean; data: { secret: string } }>(`${setupBase}/v2/email-service/webhook/secret`, { headers })
      await receiver.setSecret(path, secret.data.secret)
      return { account, path, list, headers }
    })
    await server.stop()
    console.log(`  lists, webhooks and secrets set up in ${fmt((performance.now() - started) / 1000, 1)} s`)

    // The add calls' bodies are made before the clock starts, so this process is idle while the server works.
    const calls: AddCall[] = []
    const callOfContact = new Int32Array(total)
    hooks.forEach((hook, n) => {
      const first = n * s.eventsPerUrl
      for (let from = first; from < first + s.eventsPerUrl; from += ADD_BATCH) {
        const to = Math.min(first + s.eventsPerUrl, from + ADD_BATCH)
        callOfContact.fill(calls.length, from, to)
        calls.push({ hook, from, to, body: addEmailsBody(from, to, PREFIX), answeredMs: 0 })
      }
    })

    // A fresh process for the run: its RSS and profile are the run's own.
    const profileName = `webhooks-${s.name}`
    const spawnedAt = performance.now()
    server = await startServer(database, profileName)
    const runBase = server.base
    await inParallel(hooks, SETUP_CONCURRENCY, async (hook) => void (hook.headers = await authorization(runBase, hook.account)))
    const pid = server.child.process.pid!
    const before = await receiver.counts()
    if (before.events > 0) throw new Error(`the receiver got ${before.events} events before the run`)
    const cpuBefore = cpuSeconds(pid)
    const benchCpuBefore = process.cpuUsage()
    const machineBefore = machineCpu()
    const load1Before = load1()
    let rssSampledPeak = rssMiB(pid)
    const rssTimer = setInterval(() => {
      const rss = rssMiB(pid)
      if (rss !== null) rssSampledPeak = Math.max(rssSampledPeak ?? 0, rss)
    }, RSS_SAMPLE_MS)
    // A failed run must not be kept alive by the sampling.
    rssTimer.unref()

    console.log(`  adding ${fmt(total, 0)} contacts in ${calls.length} call${calls.length > 1 ? 's' : ''} …`)
    const startedMs = Date.now()
    const startedAt = performance.now()
    let adding = true
    let lastAnswerMs = 0
    let deliveredWhileAdding = 0
    let failure: unknown
    const addAll = inParallel(calls, ADD_CONCURRENCY, async (call) => {
      const answer = await json<{ result: boolean; invalid_emails?: string[] }>(`${runBase}/addressbooks/${call.hook.list}/emails`, {
        method: 'POST',
        headers: { ...call.hook.headers, 'content-type': 'application/json' },
        body: call.body,
      })
      call.answeredMs = Date.now()
      if (answer.result !== true || answer.invalid_emails) throw new Error(`unexpected answer: ${JSON.stringify(answer).slice(0, 300)}`)
    }).then(
      async () => {
        lastAnswerMs = Math.max(...calls.map((c) => c.answeredMs))
        deliveredWhileAdding = (await receiver.counts()).distinct
        adding = false
      },
      (err: unknown) => void (failure = err),
    )

    let counts = before
    let progress = { distinct: 0, at: performance.now() }
    let nextLog = performance.now() + 5_000
    let cpuAtEnd: number | null = null
    let machineAtEnd = machineBefore
    let benchCpu = process.cpuUsage(benchCpuBefore)
    let elapsed = 0
    for (;;) {
      if (failure) throw failure
      counts = await receiver.counts()
      if (!adding && counts.distinct >= total) {
        cpuAtEnd = cpuSeconds(pid)
        machineAtEnd = machineCpu()
        benchCpu = process.cpuUsage(benchCpuBefore)
        elapsed = (performance.now() - startedAt) / 1000
        break
      }
      const now = performance.now()
      if (counts.distinct !== progress.distinct) progress = { distinct: counts.distinct, at: now }
      if (now - progress.at > STALL_SECONDS * 1000) {
        throw new Error(`nothing delivered for ${STALL_SECONDS} s (${counts.distinct} of ${total}): ${JSON.stringify(counts)}\nserver output:\n${server.child.output()}`)
      }
      if (server.child.process.exitCode !== null) throw new Error(`the server exited (${server.child.process.exitCode}):\n${server.child.output()}`)
      if (now > nextLog) {
        console.log(`  ${fmt((now - startedAt) / 1000, 0)} s: ${fmt(counts.distinct, 0)} events in ${fmt(counts.requests, 0)} requests, RSS ${fmt(rssMiB(pid) ?? 0, 0)} MiB`)
        nextLog = now + 5_000
      }
      await sleep(POLL_MS)
    }
    await addAll
    clearInterval(rssTimer)
    const load1After = load1()
    const peak = peakRssMiB(pid)
    const atEnd = counts
    // Anything still to come (a repeat of a request whose answer was lost would be retried after 1 s).
    await sleep(1500)
    counts = await receiver.counts()
    const runSeconds = atEnd.lastAckMs === null ? null : (atEnd.lastAckMs - startedMs) / 1000
    const probes = s.name === 'one-url' && IDLE_PROBES > 0 ? await probeIdle(runBase, hooks[0]!, receiver, total) : []
    await server.stop()
    server = undefined
    // The profile's windows, in seconds since the server's spawn: the whole run, and from the last add call's answer on.
    const runFrom = (startedAt - spawnedAt) / 1000
    const profileFile = PROFILE && runSeconds !== null ? latestProfile(profileName) : null
    const profile = profileFile ? summariseProfile(profileFile, { from: runFrom, to: runFrom + runSeconds! }) : null
    const addsEnd = runFrom + (lastAnswerMs - startedMs) / 1000
    const profileAfterAdds = profileFile && runFrom + runSeconds! - addsEnd > 1 ? summariseProfile(profileFile, { from: addsEnd, to: runFrom + runSeconds! }) : null

    // ---- what arrived, against what the database holds
    const stored = readDatabase(database)
    const received = await receiver.events()
    const fromCreation: number[] = []
    const fromAnswer: number[] = []
    const perSecond: number[] = []
    for (let i = 0; i < received.ids.length; i++) {
      // The run's events only (the idle probes' contacts are numbered from `total` on).
      const contact = received.contacts[i]!
      if (contact < 0 || contact >= total) continue
      const created = stored.createdAt.get(received.ids[i]!)
      const arrival = received.arrivalMs[i]!
      if (created !== undefined) fromCreation.push(arrival - created)
      fromAnswer.push(arrival - calls[callOfContact[contact]!]!.answeredMs)
      const second = Math.max(0, Math.floor((arrival - startedMs) / 1000))
      perSecond[second] = (perSecond[second] ?? 0) + 1
    }
    const idle = probes.flatMap((p) => {
      const created = stored.createdAt.get(p.id)
      return created === undefined ? [] : [p.arrivalMs - created]
    })
    const serverCpu = cpuBefore !== null && cpuAtEnd !== null ? cpuAtEnd - cpuBefore : null
    const machineBusy = machineBefore && machineAtEnd ? machineAtEnd.busySeconds - machineBefore.busySeconds : null
    const machineSteal = machineBefore && machineAtEnd ? machineAtEnd.stealSeconds - machineBefore.stealSeconds : null
    // The receiver's process over the run; with the receiver in this process, that is this process.
    const receiverCpu = (atEnd.cpuUserMs + atEnd.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs) / 1000
    // This process's own CPU (the add calls, the polling) when the receiver runs elsewhere.
    const benchCpuSeconds = RECEIVER === 'child' ? (benchCpu.user + benchCpu.system) / 1e6 : 0
    const m: Measurement = {
      scenario: s.name,
      label: s.label,
      urls: s.urls,
      events: total,
      receiver: RECEIVER,
      seconds: runSeconds,
      eventsPerSecond: runSeconds === null ? null : total / runSeconds,
      addSeconds: (lastAnswerMs - startedMs) / 1000,
      addCalls: calls.length,
      deliveredWhileAdding,
      latency: fromCreation.length > 0 ? latencyOf(fromCreation) : null,
      latencyAfterAnswer: fromAnswer.length > 0 ? latencyOf(fromAnswer) : null,
      idleLatency: idle.length > 0 ? latencyOf(idle) : null,
      idleProbes: probes.length,
      receiverCounts: counts,
      requests: counts.requests,
      eventsPerRequest: counts.events / Math.max(1, counts.requests),
      lost: total - counts.distinct,
      database: { events: stored.createdAt.size, deliveries: stored.deliveries, failedAttempts: stored.failedAttempts, attemptErrors: stored.attemptErrors },
      peakRssMiB: peak,
      rssSampledPeakMiB: rssSampledPeak,
      serverCpuSeconds: serverCpu,
      serverCpuMicrosPerEvent: serverCpu === null ? null : (serverCpu / total) * 1e6,
      receiverCpuMicrosPerEvent: (receiverCpu / total) * 1e6,
      benchCpuSeconds,
      machine: {
        load1Before,
        load1After,
        busyCores: machineBusy === null ? null : machineBusy / elapsed,
        // The machine's busy time minus the server's, the receiver's and this process's.
        otherProcessesCores: machineBusy === null || serverCpu === null ? null : (machineBusy - serverCpu - receiverCpu - benchCpuSeconds) / elapsed,
        stealCores: machineSteal === null ? null : machineSteal / elapsed,
      },
      deliveredPerSecond: Array.from(perSecond, (n) => n ?? 0),
      profile,
      profileAfterAdds,
      requestTimes: requestTimes(received.requests, lastAnswerMs, atEnd.lastAckMs ?? Infinity),
    }
    console.log(
      `  ${m.seconds === null ? '?' : fmt(m.seconds, 2)} s, ${m.eventsPerSecond === null ? '?' : fmt(m.eventsPerSecond, 0)} events/s; ` +
        `${fmt(counts.distinct, 0)} delivered in ${fmt(counts.requests, 0)} requests (${fmt(m.eventsPerRequest, 1)} a request), ` +
        `${counts.duplicates} duplicates, ${counts.outOfOrder} out of order, ${m.lost} lost; the add calls took ${fmt(m.addSeconds, 2)} s`,
    )
    if (m.latency) console.log(`  latency from the event's creation: p50 ${fmt(m.latency.p50Ms, 0)} ms, p99 ${fmt(m.latency.p99Ms, 0)} ms, max ${fmt(m.latency.maxMs, 0)} ms`)
    if (m.idleLatency) console.log(`  idle server, ${m.idleProbes} single events: p50 ${fmt(m.idleLatency.p50Ms, 0)} ms, p99 ${fmt(m.idleLatency.p99Ms, 0)} ms, max ${fmt(m.idleLatency.maxMs, 0)} ms`)
    return m
  } finally {
    await server?.stop()
    await receiver.stop()
    await database.drop()
  }
}

/**
 * After the run: IDLE_PROBES contacts added one at a time to the idle server, each once the last one's event has
 * arrived, with 100-400 ms between them so they fall anywhere in the dispatcher's 250 ms idle poll. Returns each
 * event's id and arrival time (the contacts are numbered from `from` on).
 */
async function probeIdle(base: string, hook: Hook, receiver: WebhookReceiver, from: number): Promise<{ id: number; arrivalMs: number }[]> {
  let expected = (await receiver.counts()).distinct
  for (let i = 0; i < IDLE_PROBES; i++) {
    await sleep(100 + Math.random() * 300)
    await json(`${base}/addressbooks/${hook.list}/emails`, { method: 'POST', headers: { ...hook.headers, 'content-type': 'application/json' }, body: addEmailsBody(from + i, from + i + 1, PREFIX) })
    expected++
    const deadline = performance.now() + 10_000
    while ((await receiver.counts()).distinct < expected) {
      if (performance.now() > deadline) throw new Error(`the event of idle probe ${i} did not arrive within 10 s`)
      await sleep(5)
    }
  }
  const events = await receiver.events()
  const out: { id: number; arrivalMs: number }[] = []
  for (let i = 0; i < events.ids.length; i++) if (events.contacts[i]! >= from) out.push({ id: events.ids[i]!, arrivalMs: events.arrivalMs[i]! })
  return out
}

// ---- setup ----------------------------------------------------------------------------------------------------

/** `tidings accounts create` for each URL: the first alone (it migrates the database), then two at a time. */
async function createAccounts(database: BenchDatabase, count: number): Promise<BenchAccount[]> {
  const create = async (n: number) =>
    JSON.parse(await runNode(['bin/tidings.js', 'accounts', 'create', '--name', `bench-webhooks-${n}`, '--balance', '100'], database.env)) as BenchAccount
  const first = await create(0)
  const rest = await inParallel(
    Array.from({ length: count - 1 }, (_, i) => i + 1),
    ACCOUNT_CONCURRENCY,
    (n) => create(n),
  )
  return [first, ...rest]
}

async function subscribe(base: string, headers: Record<string, string>, url: string): Promise<void> {
  const answer = await json<{ success: boolean; data: { url: string; action: string }[] }>(`${base}/v2/email-service/webhook`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ url, actions: [ACTION] }),
  })
  if (!answer.success || answer.data[0]?.action !== ACTION) throw new Error(`subscribing ${url} answered ${JSON.stringify(answer)}`)
}

/** `node …args` in the repository; its stdout, or an error with its stderr. */
function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('node', args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)))
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`node ${args.join(' ')} failed (${code}):\n${stderr}${stdout}`))))
  })
}

/** Runs `work` on every item with at most `concurrency` at once; the results in the items' order. */
async function inParallel<T, R>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await work(items[i]!, i)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
  return results
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// ---- the database after the run -------------------------------------------------------------------------------

interface Stored {
  /** events.id → events.created_at (epoch ms). */
  createdAt: Map<number, number>
  deliveries: Record<string, number>
  /** Requests in the delivery log (its last 200 per URL) that did not get a 2xx. */
  failedAttempts: number
  attemptErrors: string[]
}

/** Read-only, once the server has stopped. */
function readDatabase(database: BenchDatabase): Stored {
  const db = new SQLite(database.url.slice('sqlite:'.length), { readonly: true, fileMustExist: true })
  try {
    const createdAt = new Map<number, number>()
    for (const row of db.prepare('select id, created_at from events').iterate() as Iterable<{ id: number; created_at: number }>) createdAt.set(Number(row.id), Number(row.created_at))
    const deliveries: Record<string, number> = {}
    for (const row of db.prepare('select status, count(*) as n from webhook_deliveries group by status').all() as { status: string; n: number }[]) deliveries[row.status] = row.n
    const failed = db.prepare('select error, status_code from webhook_attempts where status_code is null or status_code not between 200 and 299').all() as { error: string | null; status_code: number | null }[]
    return { createdAt, deliveries, failedAttempts: failed.length, attemptErrors: [...new Set(failed.map((f) => f.error ?? `HTTP ${f.status_code}`))].slice(0, 5) }
  } finally {
    db.close()
  }
}

/** The commit dist/ was built from, and whether src/ differed from it (read-only git calls). */
function sourceVersion(): { commit: string | null; srcChanged: boolean | null } {
  const git = (args: string[]) => spawnSync('git', ['--no-optional-locks', ...args], { cwd: ROOT, encoding: 'utf8' })
  const head = git(['rev-parse', '--short', 'HEAD'])
  const status = git(['status', '--porcelain', '--', 'src'])
  return { commit: head.status === 0 ? head.stdout.trim() : null, srcChanged: status.status === 0 ? status.stdout.trim() !== '' : null }
}

/** The run's requests (not the idle probes' after it): see Measurement.requestTimes. */
function requestTimes(r: ReceivedRequests, addsAnsweredMs: number, runEndMs: number): Measurement['requestTimes'] {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
  const run = r.arrivalMs.flatMap((arrival, i) => (arrival <= runEndMs ? [i] : []))
  const after = run.filter((i) => r.arrivalMs[i]! > addsAnsweredMs && r.gapMs[i]! >= 0)
  return {
    handlingMs: mean(run.map((i) => r.handlingMs[i]!)),
    afterAdds: after.length === 0 ? null : { requests: after.length, gapMs: mean(after.map((i) => r.gapMs[i]!)), handlingMs: mean(after.map((i) => r.handlingMs[i]!)) },
  }
}

function latencyOf(ms: number[]): Latency {
  const s = summarize(ms)
  return { p50Ms: s.p50Ms, p90Ms: s.p90Ms, p99Ms: s.p99Ms, maxMs: s.maxMs, meanMs: s.meanMs }
}

// ---- reporting ------------------------------------------------------------------------------------------------

function report(measured: Measurement[]): void {
  const goals = measured.flatMap((m) => {
    const c = m.receiverCounts
    const out = [
      {
        goal: `${m.label}: every event delivered once`,
        value: `${fmt(c.distinct, 0)} of ${fmt(m.events, 0)} delivered, ${c.duplicates} duplicates, ${m.lost} lost, ${c.malformed} malformed`,
        met: m.lost === 0 && c.duplicates === 0 && c.malformed === 0 && (m.database.deliveries.queued ?? 0) === 0 && (m.database.deliveries.failed ?? 0) === 0,
      },
      { goal: `${m.label}: in order per URL`, value: `${c.outOfOrder} out of order`, met: c.outOfOrder === 0 },
      {
        goal: `${m.label}: signatures verify`,
        value: `${c.signaturesChecked} checked, ${c.signatureFailures} failed${c.signaturesUnchecked ? `, ${c.signaturesUnchecked} without a secret` : ''}${c.firstSignatureError ? ` (${c.firstSignatureError})` : ''}`,
        met: c.signaturesChecked > 0 && c.signatureFailures === 0 && c.signaturesUnchecked === 0,
      },
      {
        goal: `${m.label}: <= ${MAX_EVENTS_PER_REQUEST} events and <= ${MAX_FIELDS_PER_REQUEST} fields a request, form-urlencoded`,
        value: `at most ${c.maxEventsPerRequest} events, ${c.maxFieldsPerRequest} fields; ${c.wrongContentType} with another content-type`,
        met: c.maxEventsPerRequest <= MAX_EVENTS_PER_REQUEST && c.maxFieldsPerRequest <= MAX_FIELDS_PER_REQUEST && c.wrongContentType === 0,
      },
    ]
    if (m.scenario === 'one-url') {
      out.unshift({
        goal: `${m.label}: >= ${fmt(GOAL_PER_SECOND, 0)} events/s (${fmt(GOAL_EVENTS, 0)} in <= ${GOAL_SECONDS} s) on SQLite`,
        value: m.seconds === null ? '?' : `${fmt(m.eventsPerSecond!, 0)}/s, ${fmt(m.seconds, 1)} s`,
        met: m.eventsPerSecond !== null && m.eventsPerSecond >= GOAL_PER_SECOND,
      })
    }
    return out
  })

  const date = new Date().toISOString()
  const environment = {
    ...machine(),
    scenarios: SCENARIOS,
    receiver: RECEIVER,
    addBatch: ADD_BATCH,
    addConcurrency: ADD_CONCURRENCY,
    verifyEvery: VERIFY_EVERY,
    tidingsLogLevel: LOG_LEVEL,
    tidingsServer: 'node bin/tidings.js serve (compiled dist/), SQLite, TIDINGS_WEBHOOK_ALLOW_PRIVATE=1',
    // The checkout when the run started; with BENCH_SKIP_BUILD=1 dist/ may be older.
    ...source,
    profiled: PROFILE,
  }
  const file = writeResults('webhooks', { date, environment, results: measured, goals })

  console.log('')
  console.log(
    '| scenario | events/s | seconds | add calls (s) | requests | events/request | latency p50 / p99 / max (ms) | after the add answer p50 / p99 (ms) | idle server p50 / p99 (ms) | dup / out of order / lost | ' +
      'peak RSS (MiB) | server CPU (µs/event) | receiver CPU (µs/event) | load 1 min before → after | busy cores (others) | steal (cores) |',
  )
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const m of measured) {
    const l = m.latency
    const a = m.latencyAfterAnswer
    const c = m.receiverCounts
    console.log(
      `| ${m.label} | ${m.eventsPerSecond === null ? '?' : fmt(m.eventsPerSecond, 0)} | ${m.seconds === null ? '?' : fmt(m.seconds, 2)} | ${fmt(m.addSeconds, 2)} | ` +
        `${fmt(m.requests, 0)} | ${fmt(m.eventsPerRequest, 1)} | ${l ? `${fmt(l.p50Ms, 0)} / ${fmt(l.p99Ms, 0)} / ${fmt(l.maxMs, 0)}` : '?'} | ` +
        `${a ? `${fmt(a.p50Ms, 0)} / ${fmt(a.p99Ms, 0)}` : '?'} | ${m.idleLatency ? `${fmt(m.idleLatency.p50Ms, 0)} / ${fmt(m.idleLatency.p99Ms, 0)}` : '–'} | ${c.duplicates} / ${c.outOfOrder} / ${m.lost} | ${m.peakRssMiB === null ? '?' : fmt(m.peakRssMiB, 0)} | ` +
        `${m.serverCpuMicrosPerEvent === null ? '?' : fmt(m.serverCpuMicrosPerEvent, 0)} | ${fmt(m.receiverCpuMicrosPerEvent, 0)} | ` +
        `${fmt(m.machine.load1Before, 2)} → ${fmt(m.machine.load1After, 2)} | ` +
        `${m.machine.busyCores === null ? '?' : fmt(m.machine.busyCores, 2)} (${m.machine.otherProcessesCores === null ? '?' : fmt(m.machine.otherProcessesCores, 2)}) | ` +
        `${m.machine.stealCores === null ? '?' : fmt(m.machine.stealCores, 2)} |`,
    )
  }
  console.log('')
  console.log(
    `Latency: the receiver's arrival time minus events.created_at, which is taken when the add call's transaction starts; ` +
      `"after the add answer" counts from the answer to the call that made the event instead; "idle server": ${IDLE_PROBES} contacts ` +
      `added one at a time after the run. Receiver CPU is ` +
      `${RECEIVER === 'child' ? "the receiver's own process" : 'this whole process (the receiver runs in it)'}. ` +
      `Busy cores: the machine's busy CPU time over the run, divided by its length; in brackets the part of it used by processes ` +
      `other than the server, the receiver and this one. Steal: CPU time the hypervisor gave to other machines.`,
  )
  for (const m of measured) {
    const c = m.receiverCounts
    const t = m.requestTimes
    console.log(
      `${m.label}: per request, the receiver took ${fmt(t.handlingMs, 2)} ms (mean) from reading it to answering` +
        (t.afterAdds ? `; after the last add call, ${fmt(t.afterAdds.requests, 0)} requests came ${fmt(t.afterAdds.gapMs, 2)} ms (mean) after the answer to the previous one to their URL and took the receiver ${fmt(t.afterAdds.handlingMs, 2)} ms` : '') +
        `; ${fmt(m.deliveredWhileAdding, 0)} events had arrived when the last add call was answered; receiver event-loop delay p99 ` +
        `${fmt(c.loopDelayP99Ms, 1)} ms, max ${fmt(c.loopDelayMaxMs, 1)} ms; delivery log: ${m.database.failedAttempts} failed requests` +
        `${m.database.attemptErrors.length ? ` (${m.database.attemptErrors.join('; ')})` : ''}; deliveries in the database: ${JSON.stringify(m.database.deliveries)}`,
    )
  }
  for (const m of measured) {
    if (m.deliveredPerSecond.length < 2) continue
    console.log(`${m.label}: events delivered in each second of the run: ${m.deliveredPerSecond.map((n) => fmt(n, 0)).join(', ')}`)
  }
  for (const m of measured) {
    if (m.profile) printProfile(m.label, m.profile, 'the run')
    if (m.profileAfterAdds) printProfile(m.label, m.profileAfterAdds, 'the run after the last add call was answered (deliveries only)')
  }
  console.log('')
  for (const g of goals) console.log(`${g.met ? 'MET   ' : 'MISSED'} ${g.goal} (measured ${g.value})`)
  console.log(
    `\n${environment.cpus} CPUs (${environment.cpuModel}), node ${process.version}; commit ${environment.commit ?? '?'}` +
      `${environment.srcChanged ? ' with src/ changed' : ''}${environment.built ? '' : ' (dist/ not rebuilt)'}; results written to ${file}`,
  )
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err)
  process.exitCode = 1
})
