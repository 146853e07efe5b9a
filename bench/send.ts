// `npm run bench:send`: one email campaign to BENCH_MESSAGES (100,000) contacts, a personalised HTML template of
// about 5 KB, delivered over SMTP to a local sink, timed from the POST /campaigns call until GET /campaigns/{id}
// answers status 3. The sinks:
//
// - node: smtp-server in this process, logging off (bench/lib/smtp-sink.ts); it also counts bytes and distinct
//   recipients and keeps a few messages to check the personalisation;
// - postfix: postfix's smtp-sink in its own process (bench/lib/postfix.ts; fetched with `apt-get download`).
//
// The reference, measured in the same run after the targets: postfix's smtp-source sending the same number of
// messages over 10 sessions (`-d`: one connection per session, as a pooled client keeps) to smtp-sink, median of
// BENCH_REFERENCE_RUNS runs. Its messages have the mean size of Tidings' messages at the node sink (tracking
// links and headers included), or without a node-sink target the size of the template rendered by nodemailer.
// Tidings' msgs/s divided by smtp-source's is the figure tracked. smtp-source also runs once with a new
// connection per message (its default) and once into the node sink, for context.
//
// For each target (database × sink) the script makes a fresh database, an account with enough balance (CLI),
// and starts `node bin/tidings.js serve` with TIDINGS_SMTP_URL pointing at the sink. Through the API it makes a
// list, imports the contacts (10,000 per request, 2 in flight) and activates a sender (the code is read with
// `tidings outbox`, once GET /outbox says it was sent). It then restarts the server on the same database, so the peak RSS and the CPU profile belong to
// the campaign alone, and sends the campaign. While it is sent, the server's RSS (VmRSS) and the sink's count
// are sampled every 250 ms, and the RSS is recorded as the sink passes 10%, 50% and 100% of the messages; the
// campaign is asked for its status every 2 s, and every 50 ms once the sink has every message. The server's CPU
// time (/proc/<pid>/stat, all threads) is read at both ends. At each checkpoint the server's /metrics also gives
// its V8 heap (total and used) and its external memory (Buffers): where the RSS goes.
//
// BENCH_WORKERS (0: the server sends, as a new user runs it) lists how many `tidings worker` processes send
// instead, next to `serve --no-dispatch`: `0,1,2` measures each (PostgreSQL is the database for more than one
// process). Their CPU is added to the server's; the RSS columns are the largest of the sending processes.
//
// Environment: BENCH_MESSAGES (100000), BENCH_SESSIONS (10: smtp-source's sessions and the server's SMTP pool
// size), BENCH_DIALECTS (sqlite; sqlite,postgres; `none`: the references only), BENCH_SINKS (node,postfix),
// BENCH_MESSAGE_SIZE (bytes per message for smtp-source; default: as above),
// BENCH_REFERENCE_RUNS (3), BENCH_STALL_SECONDS (60: give up when nothing is delivered for that long), BENCH_WORKERS (0),
// BENCH_LOG_LEVEL (warn), BENCH_PROFILE=1 (the campaign's server under --cpu-prof, with a summary of where its
// CPU went), BENCH_SKIP_BUILD=1, TIDINGS_TEST_DATABASE_URL.
import nodemailer from 'nodemailer'
import { simpleParser } from 'mailparser'
import { convert } from 'html-to-text'
import { fmt, machine, positiveNumber, writeResults, listFromEnv, printGoals } from './lib/env.js'
import { cpuSeconds, rssMiB } from './lib/proc-stats.js'
import { latestProfile, printProfile, summariseProfile, type ProfileSummary } from './lib/cpu-profile.js'
import { buildUnlessSkipped, peakRssMiB, PROFILE, run, type Child } from './lib/processes.js'
import { json } from './lib/http.js'
import { campaignHtml, sendContact, SENDER, SUBJECT } from './lib/newsletter.js'
import { postfixTools, runSmtpSource, startPostfixSink, type SmtpSourceResult } from './lib/postfix.js'
import { startNodeSink, type NodeSink } from './lib/smtp-sink.js'
import {
  startWorker,
  authorization,
  createBenchDatabase,
  createList,
  expectListSize,
  postgresSource,
  startServer,
  stopEmbeddedPostgres,
  type BenchAccount,
  type BenchDatabase,
  type Dialect,
  type TidingsServer,
} from './lib/tidings.js'
import { freePort } from '../test/helpers/postgres.js'

const MESSAGES = Math.max(1, Math.round(positiveNumber('BENCH_MESSAGES', 100_000)))
const SESSIONS = Math.max(1, Math.round(positiveNumber('BENCH_SESSIONS', 10)))
const STALL_SECONDS = positiveNumber('BENCH_STALL_SECONDS', 60)
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || 'warn'
const IMPORT_BATCH = 10_000
const IMPORT_CONCURRENCY = 2
/** RSS and the sink's count are sampled this often; the campaign is asked for its status every STATUS_POLL_MS, and
 * every 50 ms once the sink has every message. */
const SAMPLE_MS = 250
const STATUS_POLL_MS = 2000
const REFERENCE_RUNS = Math.max(1, positiveNumber('BENCH_REFERENCE_RUNS', 3))
/** The RSS is recorded when the sink has received these shares of the messages (10k, 50k, 100k by default). */
const CHECKPOINTS = [0.1, 0.5, 1]

const DIALECTS = listFromEnv<Dialect>('BENCH_DIALECTS', ['sqlite', 'postgres'], ['sqlite'])
type SinkName = 'node' | 'postfix'
const SINKS = listFromEnv<SinkName>('BENCH_SINKS', ['node', 'postfix'], ['node', 'postfix'])
const WORKERS = (process.env.BENCH_WORKERS || '0').split(',').map((n) => {
  const workers = Number(n.trim())
  if (!Number.isInteger(workers) || workers < 0) throw new Error(`BENCH_WORKERS: ${n} is not a number of processes`)
  return workers
})

/** Issue 19: one process on SQLite sends at least this share of smtp-source's messages a second … */
const GOAL_RATIO = 0.25
/** … with a peak RSS of at most 200 MB (190.7 MiB) … */
const GOAL_RSS_MIB = 200e6 / 2 ** 20
/** … and flat: the largest RSS at the checkpoints at most this much above the smallest. */
const FLAT_GROWTH = 0.1


// ---- the campaign's size ----------------------------------------------------------------------------------------

/**
 * The size of contact 0's message as an SMTP client sends it, without tracking: the template filled in, an
 * HTML part and a text part made from it (html-to-text, as Tidings does), MIME-encoded by nodemailer.
 */
async function renderedMessageBytes(html: string): Promise<number> {
  const contact = sendContact(0)
  const fill = (template: string) => template.replace(/\{\{(name|city)\}\}/g, (_, key: 'name' | 'city') => contact.variables[key])
  const rendered = fill(html)
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true })
  const info = await transport.sendMail({
    from: { name: SENDER.name, address: SENDER.email },
    to: contact.email,
    subject: fill(SUBJECT),
    html: rendered,
    text: convert(rendered, { wordwrap: 78, selectors: [{ selector: 'img', format: 'skip' }] }),
  })
  return (info.message as Buffer).length
}

// ---- main ---------------------------------------------------------------------------------------------------

interface Reference {
  label: string
  sink: SinkName
  reuseConnections: boolean
  /** The tracked reference is run REFERENCE_RUNS times: its median counts. */
  tracked: boolean
  runs: (SmtpSourceResult & { received: number })[]
  messagesPerSecond: number
  seconds: number
  received: number
  /** Node sink only: bytes per message as received (headers included). */
  meanMessageBytes: number | null
}

async function main(): Promise<void> {
  const html = campaignHtml()
  const estimated = await renderedMessageBytes(html)
  const postfix = postfixTools()
  console.log(
    `${fmt(MESSAGES, 0)} messages, template ${fmt(Buffer.byteLength(html), 0)} bytes (a rendered message ≈ ${fmt(estimated, 0)} bytes), ` +
      `${SESSIONS} SMTP sessions; postfix ${postfix.version}; targets: ${DIALECTS.flatMap((d) => SINKS.map((s) => `${d}→${s}`)).join(', ') || 'none'}`,
  )
  if (DIALECTS.length > 0) buildUnlessSkipped()

  const measured: Measurement[] = []
  try {
    for (const dialect of DIALECTS) for (const sink of SINKS) for (const workers of WORKERS) measured.push(await benchTidings(dialect, sink, html, workers))
  } finally {
    await stopEmbeddedPostgres()
  }
  // The references send messages of the size Tidings sent (tracking links and headers included), as the node
  // sink measured it; without a node-sink target, of the size estimated from the template.
  const sent = measured.find((m) => m.meanMessageBytes !== null)?.meanMessageBytes
  const sizeBytes = positiveNumber('BENCH_MESSAGE_SIZE', Math.round(sent ?? estimated))
  const sizeSource = process.env.BENCH_MESSAGE_SIZE ? 'BENCH_MESSAGE_SIZE' : sent ? "the mean of Tidings' messages at the node sink" : 'the template rendered without tracking: no node-sink target ran'
  console.log(`\nreferences: ${fmt(sizeBytes, 0)}-byte messages (${sizeSource})`)
  const references = await measureReferences(sizeBytes)
  report({ references, measured, html, estimated, sizeBytes, sizeSource, postfixVersion: postfix.version })
}

// ---- the references: smtp-source ----------------------------------------------------------------------------

/**
 * smtp-source's own headers (From, To, Date, Message-Id): about 150 bytes, and `-l` counts the payload with its
 * line ends, so a payload this much smaller makes messages of `sizeBytes` on the wire.
 */
const SMTP_SOURCE_HEADER_BYTES = 150

async function measureReferences(sizeBytes: number): Promise<Reference[]> {
  const out: Reference[] = []
  const kinds = [
    { label: 'smtp-source -d → postfix smtp-sink', sink: 'postfix', reuseConnections: true, tracked: true },
    { label: 'smtp-source (a connection per message) → postfix smtp-sink', sink: 'postfix', reuseConnections: false, tracked: false },
    { label: 'smtp-source -d → node smtp-server sink', sink: 'node', reuseConnections: true, tracked: false },
  ] as const
  for (const kind of kinds) {
    const nodeSink = kind.sink === 'node' ? await startNodeSink() : undefined
    const sink = nodeSink ?? (await startPostfixSink(await freePort()))
    try {
      const runs: Reference['runs'] = []
      for (let i = 0; i < (kind.tracked ? REFERENCE_RUNS : 1); i++) {
        const before = sink.count()
        const result = await runSmtpSource({
          port: sink.port,
          messages: MESSAGES,
          sessions: SESSIONS,
          sizeBytes: Math.max(0, sizeBytes - SMTP_SOURCE_HEADER_BYTES),
          reuseConnections: kind.reuseConnections,
        })
        const received = (await settledCount(sink.count)) - before
        runs.push({ ...result, received })
        if (received !== MESSAGES) console.warn(`  the sink received ${received} messages, not ${MESSAGES}`)
      }
      const median = [...runs].sort((a, b) => a.messagesPerSecond - b.messagesPerSecond)[Math.floor(runs.length / 2)]!
      const spread = runs.length > 1 ? ` (median of ${runs.map((r) => fmt(r.messagesPerSecond, 0)).join(', ')})` : ''
      console.log(`${kind.label}: ${fmt(median.messagesPerSecond, 0)} msgs/s${spread}, ${fmt(median.seconds, 2)} s, ${fmt(median.received, 0)} received`)
      out.push({
        ...kind,
        runs,
        messagesPerSecond: median.messagesPerSecond,
        seconds: median.seconds,
        received: median.received,
        meanMessageBytes: nodeSink ? nodeSink.bytes() / Math.max(1, nodeSink.count()) : null,
      })
    } finally {
      await sink.stop()
    }
  }
  return out
}

/** The sink's count once it has not changed for 300 ms (at most 5 s). */
async function settledCount(count: () => number): Promise<number> {
  let last = count()
  for (let waited = 0; waited < 5000; waited += 300) {
    await sleep(300)
    const now = count()
    if (now === last) return now
    last = now
  }
  return last
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// ---- Tidings --------------------------------------------------------------------------------------------------

interface Sample {
  seconds: number
  delivered: number
  rssMiB: number | null
  status: number | null
}

/** The server's memory as its /metrics says (prom-client's default metrics), MiB. */
interface MemoryBreakdown {
  heapTotalMiB: number
  heapUsedMiB: number
  externalMiB: number
}

interface Measurement {
  dialect: Dialect
  sink: SinkName
  /** `tidings worker` processes sending (0: the server itself). */
  workers: number
  label: string
  messages: number
  /** From the POST /campaigns call to the GET answering status 3. */
  seconds: number
  messagesPerSecond: number
  /** How long POST /campaigns took to answer. */
  createSeconds: number
  /** When the sink had all messages, from the create call (null if it never had). */
  lastDeliveredSeconds: number | null
  delivered: number
  /** Node sink only: delivered minus distinct recipients. */
  duplicates: number | null
  lost: number
  meanMessageBytes: number | null
  personalised: { checked: number; ok: boolean; problems: string[] } | null
  rssAtStartMiB: number | null
  rssAt: { messages: number; rssMiB: number | null; seconds: number; memory: MemoryBreakdown | null }[]
  /** VmHWM of the campaign's server (it was restarted after the import). */
  peakRssMiB: number | null
  serverCpuSeconds: number | null
  serverCpuMicrosPerMessage: number | null
  campaign: unknown
  samples: Sample[]
  profile: ProfileSummary | null
}

async function benchTidings(dialect: Dialect, sinkName: SinkName, html: string, workers: number): Promise<Measurement> {
  const processes = workers === 0 ? '' : `, serve --no-dispatch + ${workers} worker${workers > 1 ? 's' : ''}`
  const label = `Tidings, ${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}${processes} → ${sinkName === 'node' ? 'node smtp-server sink' : 'postfix smtp-sink'}`
  console.log(`\n${label}`)
  const nodeSink = sinkName === 'node' ? await startNodeSink(0, { keep: 3, distinctRecipients: true }) : undefined
  const sink = nodeSink ?? (await startPostfixSink(await freePort()))
  const base = await createBenchDatabase(dialect, LOG_LEVEL)
  const smtpUrl = `smtp://127.0.0.1:${sink.port}?pool=true&maxConnections=${SESSIONS}`
  // The settings that could hold a campaign back are set to their defaults in case the caller's environment has them.
  const database: BenchDatabase = {
    ...base,
    env: { ...base.env, TIDINGS_SMTP_URL: smtpUrl, TIDINGS_EMAIL_RATE: '0', TIDINGS_MODERATION: 'auto', TIDINGS_BOUNCE_PORT: '0' },
  }
  let server: TidingsServer | undefined
  let workerChildren: Child[] = []
  try {
    // Enough balance for the campaign at any plausible price per email.
    const account = JSON.parse(
      run('node', ['bin/tidings.js', 'accounts', 'create', '--name', 'bench-send', '--balance', String(Math.max(1_000_000, MESSAGES * 10))], database.env),
    ) as BenchAccount

    server = await startServer(database, `send-setup-${dialect}-${sinkName}`)
    let headers = await authorization(server.base, account)
    const list = await createList(server.base, headers, 'send')
    let started = performance.now()
    await importContacts(server.base, headers, list)
    await expectListSize(server.base, headers, list, MESSAGES)
    console.log(`  ${fmt(MESSAGES, 0)} contacts imported in ${fmt((performance.now() - started) / 1000, 1)} s`)
    await activateSender(server.base, headers, database, account)
    await server.stop()

    // A fresh process for the campaign: its RSS and profile are the campaign's own.
    const profileName = `send-${dialect}-${sinkName}${workers ? `-w${workers}` : ''}`
    const spawnedAt = performance.now()
    server = await startServer(database, workers ? `${profileName}-serve` : profileName, undefined, workers ? ['--no-dispatch'] : [])
    workerChildren = Array.from({ length: workers }, (_, i) => startWorker(database, `${profileName}-worker${i + 1}`, i + 1))
    // A worker has no port to ask: time for it to load and connect before the campaign starts.
    if (workers) await sleep(3000)
    headers = await authorization(server.base, account)
    const pid = server.child.process.pid!
    const senders = workers ? workerChildren.map((w) => w.process.pid!) : [pid]
    const everyPid = workers ? [pid, ...senders] : [pid]
    const baseline = await settledCount(sink.count)
    const bytesBefore = nodeSink?.bytes() ?? 0
    const recipientsBefore = nodeSink?.distinctRecipients() ?? 0
    const largestRss = () => Math.max(...senders.map((p) => rssMiB(p) ?? NaN))
    const cpuOfAll = () => everyPid.reduce((sum, p) => sum + (cpuSeconds(p) ?? NaN), 0)
    const rssAtStartMiB = largestRss()
    const cpuBefore = cpuOfAll()

    console.log(`  sending … (server pid ${pid}${workers ? `, workers ${senders.join(', ')}` : ''})`)
    started = performance.now()
    const created = await json<{ id: number }>(`${server.base}/campaigns`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        sender_name: SENDER.name,
        sender_email: SENDER.email,
        subject: SUBJECT,
        body: Buffer.from(html).toString('base64'),
        list_id: list,
        name: `bench ${MESSAGES}`,
      }),
    })
    const createSeconds = (performance.now() - started) / 1000
    if (typeof created.id !== 'number') throw new Error(`POST /campaigns answered ${JSON.stringify(created)}`)

    const delivered = () => sink.count() - baseline
    const samples: Sample[] = []
    const rssAt: Measurement['rssAt'] = []
    let lastDeliveredSeconds: number | null = null
    let campaign: unknown
    let progress = { delivered: 0, at: performance.now() }
    let nextLog = performance.now() + 10_000
    let status: number | null = null
    let nextStatusAt = 0
    for (;;) {
      const count = delivered()
      const rss = largestRss()
      const seconds = (performance.now() - started) / 1000
      for (const share of CHECKPOINTS) {
        const at = Math.round(MESSAGES * share)
        if (count >= at && !rssAt.some((r) => r.messages === at)) rssAt.push({ messages: at, rssMiB: rss, seconds, memory: workers ? null : await memoryOf(server.base) })
      }
      if (count >= MESSAGES) lastDeliveredSeconds ??= seconds
      // The campaign is asked for rarely while it is sent (each GET counts its messages), then often.
      if (count >= MESSAGES || performance.now() >= nextStatusAt) {
        campaign = await getCampaign(server.base, headers, created.id)
        status = statusOf(campaign)
        nextStatusAt = performance.now() + STATUS_POLL_MS
      }
      samples.push({ seconds, delivered: count, rssMiB: rss, status })
      if (status === 3) break
      const now = performance.now()
      if (count !== progress.delivered) progress = { delivered: count, at: now }
      if (now - progress.at > STALL_SECONDS * 1000) {
        throw new Error(`nothing delivered for ${STALL_SECONDS} s (${count} of ${MESSAGES}); the campaign: ${JSON.stringify(campaign)}\nserver output:\n${server.child.output()}`)
      }
      if (server.child.process.exitCode !== null) throw new Error(`the server exited (${server.child.process.exitCode}):\n${server.child.output()}`)
      for (const w of workerChildren) if (w.process.exitCode !== null) throw new Error(`a worker exited (${w.process.exitCode}):\n${w.output()}`)
      if (now > nextLog) {
        console.log(`  ${fmt(seconds, 0)} s: ${fmt(count, 0)} delivered, status ${status}, RSS ${rss === null ? '?' : fmt(rss, 0)} MiB`)
        nextLog = now + 10_000
      }
      await sleep(count >= MESSAGES ? 50 : SAMPLE_MS)
    }
    const seconds = (performance.now() - started) / 1000
    const cpuAfter = cpuOfAll()
    const peak = Math.max(...senders.map((p) => peakRssMiB(p) ?? NaN))
    const finalCount = (await settledCount(sink.count)) - baseline
    lastDeliveredSeconds ??= finalCount >= MESSAGES ? seconds : null
    const serverCpu = Number.isFinite(cpuAfter - cpuBefore) ? cpuAfter - cpuBefore : null
    await Promise.all(workerChildren.map((w) => w.stop()))
    workerChildren = []
    await server.stop()
    server = undefined
    // With workers, the first one's profile: the others do the same work.
    const profiled = workers ? `${profileName}-worker1` : profileName
    const profile = PROFILE ? summariseProfile(latestProfile(profiled), { from: (started - spawnedAt) / 1000, to: (started - spawnedAt) / 1000 + seconds }) : null

    // The node sink tells duplicates from losses by the distinct recipients (the sender's activation email, sent
    // before, is not counted); the postfix sink only counts.
    const distinct = nodeSink ? nodeSink.distinctRecipients() - recipientsBefore : null
    const duplicates = distinct === null ? null : finalCount - distinct
    const lost = MESSAGES - (distinct ?? finalCount)
    const m: Measurement = {
      dialect,
      sink: sinkName,
      workers,
      label,
      messages: MESSAGES,
      seconds,
      messagesPerSecond: MESSAGES / seconds,
      createSeconds,
      lastDeliveredSeconds,
      delivered: finalCount,
      duplicates,
      lost,
      meanMessageBytes: nodeSink && finalCount > 0 ? (nodeSink.bytes() - bytesBefore) / finalCount : null,
      personalised: nodeSink ? await checkPersonalised(nodeSink) : null,
      rssAtStartMiB: Number.isNaN(rssAtStartMiB) ? null : rssAtStartMiB,
      rssAt,
      peakRssMiB: Number.isNaN(peak) ? null : peak,
      serverCpuSeconds: serverCpu,
      serverCpuMicrosPerMessage: serverCpu === null ? null : (serverCpu / MESSAGES) * 1e6,
      campaign,
      samples,
      profile,
    }
    console.log(
      `  ${fmt(m.messagesPerSecond, 0)} msgs/s (${fmt(seconds, 1)} s; POST /campaigns took ${fmt(createSeconds, 2)} s), ${fmt(finalCount, 0)} delivered` +
        `${duplicates ? `, ${duplicates} duplicates` : ''}${lost ? `, ${lost} lost` : ''}, peak RSS ${peak === null ? '?' : fmt(peak, 0)} MiB` +
        `${serverCpu === null ? '' : `, server CPU ${fmt(serverCpu, 1)} s (${fmt(m.serverCpuMicrosPerMessage!, 0)} µs/msg)`}`,
    )
    return m
  } finally {
    await Promise.all(workerChildren.map((w) => w.stop()))
    await server?.stop()
    await sink.stop()
    await database.drop()
  }
}

/** POST /addressbooks/{id}/emails, IMPORT_BATCH contacts per request, IMPORT_CONCURRENCY in flight. */
async function importContacts(base: string, headers: Record<string, string>, list: number): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < MESSAGES) {
      const from = next
      next = Math.min(MESSAGES, from + IMPORT_BATCH)
      const emails = []
      for (let i = from; i < next; i++) emails.push(sendContact(i))
      const answer = await json<{ result: boolean; invalid_emails?: string[] }>(`${base}/addressbooks/${list}/emails`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ emails }),
      })
      if (answer.result !== true || answer.invalid_emails) throw new Error(`unexpected answer: ${JSON.stringify(answer).slice(0, 300)}`)
    }
  }
  await Promise.all(Array.from({ length: IMPORT_CONCURRENCY }, worker))
}

/**
 * Adds the sender and activates it as its owner would: asks for the code, waits until the email was sent (GET
 * /outbox; waiting also keeps it out of the campaign's count), reads the code from the email in full with
 * `tidings outbox` (GET /outbox shows it [hidden]) and sends it back.
 */
async function activateSender(base: string, headers: Record<string, string>, database: BenchDatabase, account: BenchAccount): Promise<void> {
  const post = (url: string, body: unknown) => json(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  await post(`${base}/senders`, SENDER)
  await json(`${base}/senders/${encodeURIComponent(SENDER.email)}/code`, { headers })
  const deadline = Date.now() + 30_000
  for (;;) {
    const outbox = await json<{ kind: string; to: string; subject: string; text: string; status: string; last_error: string | null }[]>(`${base}/outbox?limit=100`, { headers })
    const email = outbox.filter((e) => e.kind === 'sender_code' && e.to === SENDER.email).at(-1)
    if (email?.status === 'failed') throw new Error(`the activation email failed: ${email.last_error}`)
    if (email?.status === 'sent' || email?.status === 'captured') {
      const full = JSON.parse(run('node', ['bin/tidings.js', 'outbox', '--account', String(account.id)], database.env)) as { kind: string; to: string; subject: string; text: string }[]
      const sent = full.filter((e) => e.kind === 'sender_code' && e.to === SENDER.email).at(-1)
      const code = sent && /\b(\d{8})\b/.exec(`${sent.subject}\n${sent.text}`)?.[1]
      if (!code) throw new Error(`no code in the activation email: ${sent?.subject}`)
      await post(`${base}/senders/${encodeURIComponent(SENDER.email)}/code`, { code })
      return
    }
    if (Date.now() > deadline) throw new Error(`the activation email was not sent within 30 s: ${JSON.stringify(email ?? outbox)}`)
    await sleep(100)
  }
}

/** The server's V8 heap and external memory from its /metrics (open unless TIDINGS_METRICS_TOKEN is set). */
async function memoryOf(base: string): Promise<MemoryBreakdown | null> {
  try {
    const text = await (await fetch(`${base}/metrics`)).text()
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]) / 2 ** 20
    const memory = { heapTotalMiB: value('nodejs_heap_size_total_bytes'), heapUsedMiB: value('nodejs_heap_size_used_bytes'), externalMiB: value('nodejs_external_memory_bytes') }
    return Object.values(memory).every(Number.isFinite) ? memory : null
  } catch {
    return null
  }
}

async function getCampaign(base: string, headers: Record<string, string>, id: number): Promise<unknown> {
  return json<unknown>(`${base}/campaigns/${id}`, { headers })
}

function statusOf(campaign: unknown): number | null {
  const c = (Array.isArray(campaign) ? campaign[0] : campaign) as { status?: unknown } | undefined
  return typeof c?.status === 'number' ? c.status : typeof c?.status === 'string' && /^\d+$/.test(c.status) ? Number(c.status) : null
}

/** The kept messages carry their recipient's name in the subject and the body, and no template syntax. */
async function checkPersonalised(sink: NodeSink): Promise<{ checked: number; ok: boolean; problems: string[] }> {
  const problems: string[] = []
  const kept = sink.kept()
  for (const message of kept) {
    const to = message.envelopeTo[0] ?? ''
    const i = /^s(\d+)\./.exec(to)?.[1]
    if (i === undefined) {
      problems.push(`unexpected recipient ${to}`)
      continue
    }
    const { name, city } = sendContact(Number(i)).variables
    const mail = await simpleParser(message.raw)
    const html = typeof mail.html === 'string' ? mail.html : ''
    if (mail.subject !== `Hello ${name}`) problems.push(`${to}: subject ${JSON.stringify(mail.subject)}`)
    if (!html.includes(`Hello ${name}!`) || !html.includes(city)) problems.push(`${to}: the HTML lacks the name or the city`)
    if (html.includes('{{') || (mail.text ?? '').includes('{{')) problems.push(`${to}: template syntax left in the message`)
  }
  return { checked: kept.length, ok: kept.length > 0 && problems.length === 0, problems }
}


// ---- reporting ------------------------------------------------------------------------------------------------

function report(input: {
  references: Reference[]
  measured: Measurement[]
  html: string
  estimated: number
  sizeBytes: number
  sizeSource: string
  postfixVersion: string
}): void {
  const { references, measured } = input
  const tracked = references.find((r) => r.tracked)
  const ratio = (m: { messagesPerSecond: number }) => (tracked ? m.messagesPerSecond / tracked.messagesPerSecond : null)
  const rows = measured.map((m) => ({ ...m, ratioToSmtpSource: ratio(m) }))

  const goals = rows.flatMap((m) => {
    const out = [
      {
        goal: `${m.label}: every message delivered once`,
        value: m.duplicates === null ? `${m.delivered} delivered (smtp-sink only counts)` : `${m.delivered} delivered, ${m.duplicates} duplicates, ${m.lost} lost`,
        met: m.delivered === MESSAGES && m.lost === 0 && (m.duplicates ?? 0) === 0,
      },
      { goal: `${m.label}: peak RSS <= 200 MB (${fmt(GOAL_RSS_MIB, 1)} MiB)`, value: m.peakRssMiB === null ? '?' : `${fmt(m.peakRssMiB, 0)} MiB`, met: m.peakRssMiB !== null && m.peakRssMiB <= GOAL_RSS_MIB },
      {
        goal: `${m.label}: RSS flat (at ${m.rssAt.map((r) => fmt(r.messages, 0)).join(', ')} within ${FLAT_GROWTH * 100}% of each other)`,
        value: m.rssAt.map((r) => (r.rssMiB === null ? '?' : fmt(r.rssMiB, 0))).join(' → ') + ' MiB',
        met: m.rssAt.length > 0 && m.rssAt.every((r) => r.rssMiB !== null) && Math.max(...m.rssAt.map((r) => r.rssMiB!)) <= Math.min(...m.rssAt.map((r) => r.rssMiB!)) * (1 + FLAT_GROWTH),
      },
    ]
    if (m.dialect === 'sqlite' && m.workers === 0 && m.ratioToSmtpSource !== null) {
      out.unshift({ goal: `${m.label}: >= ${GOAL_RATIO} of smtp-source's msgs/s`, value: `${fmt(m.ratioToSmtpSource, 3)} (${fmt(m.messagesPerSecond, 0)} msgs/s)`, met: m.ratioToSmtpSource >= GOAL_RATIO })
    }
    if (m.personalised) out.push({ goal: `${m.label}: messages personalised`, value: m.personalised.problems.join('; ') || `${m.personalised.checked} checked`, met: m.personalised.ok })
    return out
  })

  const date = new Date().toISOString()
  const environment = {
    ...machine(),
    messages: MESSAGES,
    sessions: SESSIONS,
    templateBytes: Buffer.byteLength(input.html),
    renderedMessageBytesEstimate: input.estimated,
    messageBytes: input.sizeBytes,
    messageBytesFrom: input.sizeSource,
    smtpSourcePayloadBytes: Math.max(0, input.sizeBytes - SMTP_SOURCE_HEADER_BYTES),
    referenceRuns: REFERENCE_RUNS,
    postfix: input.postfixVersion,
    tidingsLogLevel: LOG_LEVEL,
    tidingsServer: 'node bin/tidings.js serve (compiled dist/)',
    postgres: DIALECTS.includes('postgres') ? postgresSource() : null,
    profiled: PROFILE,
  }
  const file = writeResults('send', { date, environment, references, trackedReference: tracked?.label ?? null, results: rows, goals })

  const checkpoints = CHECKPOINTS.map((s) => fmt(Math.round(MESSAGES * s), 0)).join(' / ')
  console.log('')
  console.log(`| target | msgs/s | seconds | delivered | dup / lost | peak RSS (MiB) | RSS at ${checkpoints} (MiB) | server CPU (µs/msg) | ÷ smtp-source |`)
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const r of references) {
    const x = tracked ? `${fmt(r.messagesPerSecond / tracked.messagesPerSecond, 2)}×` : '–'
    console.log(`| ${r.label}${r.runs.length > 1 ? ` (median of ${r.runs.length})` : ''} | ${fmt(r.messagesPerSecond, 0)} | ${fmt(r.seconds, 2)} | ${fmt(r.received, 0)} | – | – | – | – | ${x} |`)
  }
  for (const m of rows) {
    const rss = m.rssAt.map((r) => (r.rssMiB === null ? '?' : fmt(r.rssMiB, 0))).join(' / ')
    console.log(
      `| ${m.label} | ${fmt(m.messagesPerSecond, 0)} | ${fmt(m.seconds, 1)} | ${fmt(m.delivered, 0)} | ${m.duplicates ?? '–'} / ${m.lost} | ${m.peakRssMiB === null ? '?' : fmt(m.peakRssMiB, 0)} | ${rss} | ` +
        `${m.serverCpuMicrosPerMessage === null ? '?' : fmt(m.serverCpuMicrosPerMessage, 0)} | ${m.ratioToSmtpSource === null ? '–' : `${fmt(m.ratioToSmtpSource, 3)}×`} |`,
    )
  }
  console.log('')
  const measuredSize = rows.find((m) => m.meanMessageBytes !== null)?.meanMessageBytes
  const sourceSize = references.find((r) => r.meanMessageBytes !== null)?.meanMessageBytes
  console.log(
    'Message size: ' +
      (measuredSize ? `Tidings' messages ${fmt(measuredSize, 0)} bytes on average at the node sink; ` : '') +
      `smtp-source's ${fmt(input.sizeBytes, 0)} bytes (${input.sizeSource}${sourceSize ? `; ${fmt(sourceSize, 0)} at the node sink` : ''}); ` +
      `the template rendered without tracking ${fmt(input.estimated, 0)} bytes`,
  )
  for (const m of rows) {
    if (!m.rssAt.some((r) => r.memory)) continue
    const parts = m.rssAt.map((r) => (r.memory ? `${fmt(r.messages, 0)}: heap ${fmt(r.memory.heapUsedMiB, 0)} used of ${fmt(r.memory.heapTotalMiB, 0)}, external ${fmt(r.memory.externalMiB, 0)}` : '?'))
    console.log(`${m.label}, MiB at the checkpoints (RSS above): ${parts.join('; ')}`)
  }
  for (const m of rows) if (m.profile) printProfile(m.label, m.profile, 'the campaign')
  printGoals(goals, environment, file)
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err)
  process.exitCode = 1
})
