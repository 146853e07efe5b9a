// `npm run bench:scale-of-work`: how the cost of a campaign's work grows with its size (issue 19, item 6), on
// SQLite and on PostgreSQL, against `node bin/tidings.js serve` (compiled dist/) in a child process.
//
// 1. copy: for each size of BENCH_SCALE_SIZES (100,000 and 1,000,000) a list of that many contacts, 1 % of them
//    blacklisted and 1 % unsubscribed, gets an email campaign scheduled a day ahead. Its recipients are copied
//    into message rows at once (batch jobs, src/services/email/campaign-lifecycle.ts), while the dispatcher
//    leaves the rows alone until the sending time: sending cannot interfere. Timed from POST /campaigns until the
//    campaign leaves status 13 (copying), when every message row is written and paid for. The benchmark reads
//    that status from the database itself, so that polling does not load the server it measures.
//    Reference (the floor): the same rows written by one INSERT … SELECT of the largest list, from the benchmark's
//    own connection, into a draft campaign of the same database (same tables, indexes and triggers).
// 2. read: GET /campaigns/{id} of each copied campaign, sequential requests (latency to the microsecond); the
//    largest also under autocannon. Reference: the same request on the smallest campaign. Every answer is checked.
// 3. sending: startSendingCampaign() starts a campaign that sends at once through the capture channel (no relay
//    is set). While it sends, one client asks in turn GET /campaigns/{id}, the open pixel of a message already sent
//    and the click redirect of another (bench/lib/tracking-probe.ts), each answer checked. References, same run: the
//    same pixels and clicks on the idle server, before the send (a small campaign sent first) and after it (other
//    messages of the big one); and the same campaign sent first without any request (BENCH_SENDING_BARE), to show
//    what the probe costs the send.
//
// Environment: BENCH_SCALE_SIZES, BENCH_SCENARIOS (copy,read,sending), BENCH_SENDING_SIZE, BENCH_SENDING_BARE,
// BENCH_HITS_REQUESTS, BENCH_READS_REQUESTS, BENCH_READS_SECONDS, BENCH_CONNECTIONS, BENCH_DURATION,
// BENCH_TARGETS (sqlite,postgres), BENCH_PROFILE=1, BENCH_SKIP_BUILD=1, TIDINGS_TEST_DATABASE_URL.
import { autocannon } from './lib/autocannon.js'
import { fmt, listFromEnv, machine, positiveNumber, printGoals, targetsFromEnv, writeResults } from './lib/env.js'
import { buildUnlessSkipped, peakRssMiB, PROFILE, run } from './lib/processes.js'
import { cpuSeconds, load1, treeCpuSeconds } from './lib/proc-stats.js'
import { latestProfile, printProfile, summariseProfile, type ProfileSummary } from './lib/cpu-profile.js'
import { benchContact, postContacts } from './lib/contacts.js'
import { json, summarize, timeSequentialGets, type LatencySummary } from './lib/http.js'
import { activateSender, BENCH_SENDER } from './lib/senders.js'
import { openPeek, type DbPeek } from './lib/db-peek.js'
import { CLICK_TARGET } from './lib/sent-campaign.js'
import { checkTokensAsSent, SentMessages, SequentialClient, signingKeyOf } from './lib/tracking-probe.js'
import type { HitKind } from './lib/tracking-hits.js'
import {
  authorization,
  createBenchDatabase,
  createList,
  expectListSize,
  postgresSource,
  startServer,
  benchEachDialect,
  type BenchAccount,
  type BenchDatabase,
  type Dialect,
  type TidingsServer,
} from './lib/tidings.js'

const SIZES = (process.env.BENCH_SCALE_SIZES ?? '100000,1000000').split(',').map((s) => {
  const n = Number(s.trim())
  if (!Number.isInteger(n) || n < 100) throw new Error(`BENCH_SCALE_SIZES: ${s} is not a size of at least 100`)
  return n
})
const SCENARIOS = listFromEnv('BENCH_SCENARIOS', ['copy', 'read', 'sending'] as const, ['copy', 'read', 'sending'])
const SENDING_SIZE = positiveNumber('BENCH_SENDING_SIZE', 100_000)
/** 1: the sending campaign is first sent once with no request at all, the reference of the send's time. */
const SENDING_BARE = (process.env.BENCH_SENDING_BARE ?? '1') !== '0'
/** Pixels, and as many clicks, timed on the idle server before and after the send. */
const HITS_REQUESTS = positiveNumber('BENCH_HITS_REQUESTS', 500)
const HITS_WARMUP = 50
/** The small campaign sent before the big one, whose messages the idle reference hits (each once; 2 % are left out). */
const REFERENCE_LIST_SIZE = Math.ceil((2 * (HITS_REQUESTS + HITS_WARMUP)) / 0.98) + 10
const READ_REQUESTS = positiveNumber('BENCH_READS_REQUESTS', 500)
const READ_SECONDS = positiveNumber('BENCH_READS_SECONDS', 20)
const CONNECTIONS = positiveNumber('BENCH_CONNECTIONS', 10)
const DURATION = positiveNumber('BENCH_DURATION', 10)
const TARGETS = targetsFromEnv<Dialect>(['sqlite', 'postgres'])
const LOAD = { batch: 10_000, concurrency: 2 }
/** Contacts i with i % 100 = 1 are blacklisted, with i % 100 = 2 unsubscribed: the copy must leave both out. */
const BLACKLISTED = 1
const UNSUBSCRIBED = 2
/** Contacts per batch of the copy (SNAPSHOT_BATCH in src/services/email/campaign-lifecycle.ts). */
const COPY_BATCH = 5000
/** Addresses per POST /blacklist; per unsubscribe call the API takes 100 at most. */
const BLACKLIST_BATCH = 5000
const UNSUBSCRIBE_BATCH = 100
const COPY_GOAL_SECONDS = 10
const COPY_GOAL_SIZE = 1_000_000
const READ_P99_GOAL_MS = 10
const POLL_MS = 20
/** Every list gets the campaign copy of its own; 4 an hour is the default limit. */
const CAMPAIGNS_PER_HOUR = 1000

interface CopyResult {
  size: number
  recipients: number
  campaignId: number
  /** POST /campaigns to the end of the copy (status 13 left). */
  seconds: number
  /** The POST's answer alone. */
  createSeconds: number
  recipientsPerSecond: number
  /** Server CPU (all threads) during the copy. */
  serverCpuSeconds: number | null
  /**
   * SQLite: CPU of this run's processes (the server and the benchmark), less noisy than seconds on a busy machine.
   * Null on PostgreSQL, whose processes come and go (autovacuum workers, pooled connections).
   */
  runCpuSeconds: number | null
  statusAfter: number
}

interface ReadResult {
  messages: number
  sequential: LatencySummary
  /** The largest campaign only. */
  autocannon?: { connections: number; seconds: number; reqPerSec: number; p50Ms: number; p99Ms: number; non2xx: number; errors: number; mismatches: number }
}

/** The floor of the copy: the largest list's recipients written by one statement from the benchmark's connection. */
interface RawCopyResult {
  size: number
  recipients: number
  seconds: number
  runCpuSeconds: number | null
}

interface SendTime {
  /** POST /campaigns to status 3. */
  seconds: number
  /** Status 13 left (every message row written) to status 3: the sending alone. */
  sendingSeconds: number
  /** Messages a second of the sending alone. */
  messagesPerSecond: number
}

interface HitLatencies {
  pixel: LatencySummary
  click: LatencySummary
}

interface SendingResult {
  messages: number
  /** The campaign sent with no request at all (BENCH_SENDING_BARE). */
  bare?: SendTime
  /** The campaign sent while the probe asks. */
  probed: SendTime
  /** probed.seconds, under the name earlier results used: POST /campaigns to status 3. */
  seconds: number
  readWhileSending: LatencySummary
  /** Pixels and clicks of messages already sent, while the rest are sent. */
  hitsWhileSending: HitLatencies
  /** The same on the idle server: before the send (a small campaign's messages), and after (the big one's). */
  idleBefore: HitLatencies
  idleAfter: HitLatencies
}

interface TargetResult {
  dialect: Dialect
  loadSeconds: Record<number, number>
  /** The 1-minute load average when the target started: other work on the machine. */
  load1AtStart: number
  copies: CopyResult[]
  rawCopy?: RawCopyResult
  /** PostgreSQL: VACUUM ANALYZE of the messages before the reads. */
  vacuumSeconds?: number
  reads: ReadResult[]
  sending?: SendingResult
  serverPeakRssMiB: number | null
  profile: ProfileSummary | null
}

/** The server, its account and what the scenarios share. */
interface ScaleTarget {
  database: BenchDatabase
  server: TidingsServer
  headers: Record<string, string>
  accountId: number
  peek: DbPeek
}

interface BenchList {
  id: number
  accountId: number
  size: number
  recipients: number
}

async function main(): Promise<void> {
  buildUnlessSkipped()
  console.log(`sizes ${SIZES.map((s) => fmt(s, 0)).join(', ')}; scenarios ${SCENARIOS.join(', ')}; ${TARGETS.join(', ')}`)
  report(await benchEachDialect(TARGETS, benchTarget))
}

async function benchTarget(dialect: Dialect): Promise<TargetResult> {
  const base = await createBenchDatabase(dialect)
  // No relay: the capture channel. The settings that could hold a campaign back are set in case the environment has them.
  const database: BenchDatabase = {
    ...base,
    env: { ...base.env, TIDINGS_SMTP_URL: '', TIDINGS_EMAIL_RATE: '0', TIDINGS_MODERATION: 'auto', TIDINGS_BOUNCE_PORT: '0', TIDINGS_CAMPAIGNS_PER_HOUR: String(CAMPAIGNS_PER_HOUR) },
  }
  const profileName = `scale-of-work-${dialect}`
  const load1AtStart = load1()
  const spawnedAt = performance.now()
  const server = await startServer(database, profileName)
  const peek = await openPeek(database)
  let profileWindow: { from: number; to: number } | undefined
  try {
    const sendingCost = SCENARIOS.includes('sending') ? REFERENCE_LIST_SIZE + (SENDING_BARE ? 2 : 1) * SENDING_SIZE : 0
    const balance = Math.max(100_000, sum(SIZES) + sendingCost)
    const account = JSON.parse(run('node', ['bin/tidings.js', 'accounts', 'create', '--name', 'scale', '--balance', String(balance)], database.env)) as BenchAccount
    const headers = await authorization(server.base, account)
    await activateSender(server.base, headers, peek)
    const target: ScaleTarget = { database, server, headers, accountId: account.id, peek }

    const loadSeconds: Record<number, number> = {}
    const lists: BenchList[] = []
    for (const [k, size] of SIZES.entries()) {
      console.log(`${dialect}: loading a list of ${fmt(size, 0)} …`)
      const started = performance.now()
      lists.push(await loadList(target, size, `l${k}-`))
      loadSeconds[size] = (performance.now() - started) / 1000
    }

    const copies: CopyResult[] = []
    if (SCENARIOS.includes('copy') || SCENARIOS.includes('read')) {
      for (const list of lists) {
        const copy = await timeCopy(target, list)
        copies.push(copy)
        console.log(`  copy of ${fmt(list.size, 0)}: ${fmt(copy.seconds, 2)} s (${fmt(copy.recipientsPerSecond, 0)} recipients/s; POST answered in ${fmt(copy.createSeconds * 1000, 0)} ms; CPU: server ${cpuText(copy.serverCpuSeconds)} s, the run ${cpuText(copy.runCpuSeconds)} s)`)
        if (list.size === Math.max(...SIZES)) {
          const from = (performance.now() - spawnedAt) / 1000 - copy.seconds
          profileWindow = { from, to: from + copy.seconds }
        }
      }
    }
    const reads: ReadResult[] = []
    let vacuumSeconds: number | undefined
    if (SCENARIOS.includes('read') && dialect === 'postgres') {
      // Millions of new message rows start autovacuum within a minute or so; run what it would run first, so that
      // no autovacuum worker competes with the reads for the two cores (as bench:audience-reads does).
      const started = performance.now()
      await peek.run('vacuum analyze messages')
      vacuumSeconds = (performance.now() - started) / 1000
      console.log(`  VACUUM ANALYZE messages: ${fmt(vacuumSeconds, 1)} s`)
    }
    if (SCENARIOS.includes('read')) {
      const largest = Math.max(...copies.map((c) => c.size))
      for (const copy of copies) reads.push(await timeReads(target, copy, copy.size === largest))
    }
    let rawCopy: RawCopyResult | undefined
    if (SCENARIOS.includes('copy')) {
      const largest = lists.reduce((a, b) => (b.size > a.size ? b : a))
      rawCopy = await timeRawCopy(target, largest)
      console.log(`  reference, the copy's INSERT … SELECT of ${fmt(largest.size, 0)} alone: ${fmt(rawCopy.seconds, 2)} s (CPU of the run ${rawCopy.runCpuSeconds === null ? '–' : fmt(rawCopy.runCpuSeconds, 1)} s)`)
    }

    let sending: SendingResult | undefined
    if (SCENARIOS.includes('sending')) {
      const list = lists.find((l) => l.size === SENDING_SIZE) ?? (await loadList(target, SENDING_SIZE, 's-'))
      sending = await timeSending(target, list)
    }
    const serverPeakRssMiB = peakRssMiB(server.child.process.pid!)
    await peek.close()
    await server.stop()
    const profile = PROFILE && profileWindow ? summariseProfile(latestProfile(profileName), profileWindow) : null
    return { dialect, load1AtStart, loadSeconds, copies, rawCopy, vacuumSeconds, reads, sending, serverPeakRssMiB, profile }
  } finally {
    await peek.close().catch(() => {})
    await server.stop()
    await database.drop()
  }
}

/** A list of `size` contacts loaded through the API, with 1 % of them blacklisted and 1 % unsubscribed. */
async function loadList(target: ScaleTarget, size: number, prefix: string): Promise<BenchList> {
  const { server, headers } = target
  const id = await createList(server.base, headers, `scale ${prefix}${size}`)
  await postContacts(server.base, headers, id, { from: 0, to: size, ...LOAD, prefix })
  await expectListSize(server.base, headers, id, size)
  const pick = (rest: number) => Array.from({ length: size }, (_, i) => i).filter((i) => i % 100 === rest).map((i) => benchContact(i, prefix).email)
  const blacklisted = pick(BLACKLISTED)
  const unsubscribed = pick(UNSUBSCRIBED)
  const post = (path: string, body: unknown) => json(`${server.base}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  for (let i = 0; i < blacklisted.length; i += BLACKLIST_BATCH) {
    await post('/blacklist', { emails: Buffer.from(blacklisted.slice(i, i + BLACKLIST_BATCH).join(', ')).toString('base64'), comment: 'scale bench' })
  }
  for (let i = 0; i < unsubscribed.length; i += UNSUBSCRIBE_BATCH) {
    await post(`/addressbooks/${id}/emails/unsubscribe`, { emails: unsubscribed.slice(i, i + UNSUBSCRIBE_BATCH) })
  }
  return { id, accountId: target.accountId, size, recipients: size - blacklisted.length - unsubscribed.length }
}

/** `sendDate`: scheduled; `draft`: neither copied nor sent. */
function campaignBody(list: BenchList, when: { sendDate?: string; draft?: boolean }): string {
  return JSON.stringify({
    sender_name: BENCH_SENDER.name,
    sender_email: BENCH_SENDER.email,
    subject: 'Hello {{name}}',
    // Link 0 is where a click redirect must lead (bench/lib/tracking-hits.ts checks the Location).
    body: Buffer.from(`<html><body><p>Hello {{name}}, you are {{age}}.</p><p><a href="${CLICK_TARGET}">News</a></p></body></html>`).toString('base64'),
    list_id: list.id,
    name: `scale ${list.size}${when.sendDate ? ' scheduled' : when.draft ? ' draft' : ''}`,
    ...(when.sendDate ? { send_date: when.sendDate } : {}),
    ...(when.draft ? { type: 'draft' } : {}),
  })
}

async function createCampaign(target: ScaleTarget, list: BenchList, when: { sendDate?: string; draft?: boolean } = {}): Promise<number> {
  const created = await json<{ id: number }>(`${target.server.base}/campaigns`, {
    method: 'POST',
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: campaignBody(list, when),
  })
  if (typeof created.id !== 'number') throw new Error(`POST /campaigns answered ${JSON.stringify(created)}`)
  return created.id
}

/** The campaign's status as stored: read beside the server, not through it. */
async function storedStatus(target: ScaleTarget, campaignId: number): Promise<number> {
  const row = await target.peek.row<{ status: number }>('select status from campaigns where id = ?', [campaignId])
  if (!row) throw new Error(`campaign ${campaignId} is not in the database`)
  return Number(row.status)
}

/** Waits until the stored status leaves `from`; returns the new one. */
async function statusLeaves(target: ScaleTarget, campaignId: number, from: readonly number[], what: string): Promise<number> {
  for (;;) {
    const status = await storedStatus(target, campaignId)
    if (!from.includes(status)) return status
    if (target.server.child.process.exitCode !== null) throw new Error(`the server exited during ${what}:\n${target.server.child.output()}`)
    await sleep(POLL_MS)
  }
}

async function timeCopy(target: ScaleTarget, list: BenchList): Promise<CopyResult> {
  const pid = target.server.child.process.pid!
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 19).replace('T', ' ')
  const cpuBefore = cpuSeconds(pid)
  const runCpuBefore = runCpu(target)
  const started = performance.now()
  const campaignId = await createCampaign(target, list, { sendDate: tomorrow })
  const createSeconds = (performance.now() - started) / 1000
  const statusAfter = await statusLeaves(target, campaignId, [13], `the copy of ${list.size}`)
  const seconds = (performance.now() - started) / 1000
  const cpuAfter = cpuSeconds(pid)
  const runCpuAfter = runCpu(target)
  const copied = await target.peek.row<{ n: number }>('select count(*) as n from messages where campaign_id = ?', [campaignId])
  if (Number(copied?.n) !== list.recipients) throw new Error(`campaign ${campaignId} has ${copied?.n} messages, expected ${list.recipients}`)
  const answer = await campaignAnswer(target, campaignId)
  checkCampaign(answer, list.recipients)
  return {
    size: list.size,
    recipients: list.recipients,
    campaignId,
    seconds,
    createSeconds,
    recipientsPerSecond: list.recipients / seconds,
    serverCpuSeconds: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    runCpuSeconds: runCpuBefore === null || runCpuAfter === null ? null : runCpuAfter - runCpuBefore,
    statusAfter,
  }
}

async function campaignAnswer(target: ScaleTarget, campaignId: number): Promise<string> {
  const res = await fetch(`${target.server.base}/campaigns/${campaignId}`, { headers: target.headers })
  const text = await res.text()
  if (!res.ok) throw new Error(`GET /campaigns/${campaignId} answered ${res.status}: ${text}`)
  return text
}

/** A scheduled campaign, as copied: every recipient counted, all of them in queue (statistics.general code 0). */
function checkCampaign(body: string, recipients: number): void {
  const c = JSON.parse(body) as { all_email_qty: number; statistics: { general: { code: number; count: number }[] } }
  const general = c.statistics.general
  if (c.all_email_qty !== recipients || general.length !== 1 || general[0]!.code !== 0 || general[0]!.count !== recipients) {
    throw new Error(`GET /campaigns/{id}: expected ${recipients} messages in queue, got all_email_qty ${c.all_email_qty}, general ${JSON.stringify(general)}`)
  }
}

async function timeReads(target: ScaleTarget, copy: CopyResult, loaded: boolean): Promise<ReadResult> {
  const path = `/campaigns/${copy.campaignId}`
  const expected = await campaignAnswer(target, copy.campaignId)
  checkCampaign(expected, copy.recipients)
  const check = (body: string) => {
    if (body !== expected) throw new Error(`GET ${path} answered something else: ${body.slice(0, 300)}`)
  }
  const sequential = await timeSequentialGets(target.server.base, target.headers, () => path, { count: READ_REQUESTS, warmup: Math.ceil(READ_REQUESTS / 10), maxSeconds: READ_SECONDS, check })
  console.log(`  GET ${path} (${fmt(copy.recipients, 0)} messages), sequential: p50 ${fmt(sequential.p50Ms, 2)} ms, p99 ${fmt(sequential.p99Ms, 2)} ms (${sequential.requests} requests)`)
  if (!loaded) return { messages: copy.recipients, sequential }
  const r = await autocannon({ url: `${target.server.base}${path}`, connections: CONNECTIONS, duration: DURATION, headers: target.headers, expectBody: expected })
  const autocannonResult = { connections: CONNECTIONS, seconds: r.duration, reqPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, non2xx: r.non2xx, errors: r.errors, mismatches: r.mismatches }
  const a = autocannonResult
  console.log(`  autocannon ${CONNECTIONS} connections: ${fmt(a.reqPerSec, 0)} req/s, p50 ${a.p50Ms} ms, p99 ${a.p99Ms} ms, non-2xx ${a.non2xx}, errors ${a.errors}, mismatches ${a.mismatches}`)
  return { messages: copy.recipients, sequential, autocannon: autocannonResult }
}

/**
 * The floor of the copy: the list's recipients (active, not blacklisted) written into a draft campaign's messages by
 * the copy's own INSERT … SELECT, in transactions of the copy's 5,000 contacts (one transaction of 1,000,000 rows
 * overflows SQLite's page cache and takes twice as long), from the benchmark's own connection: the database's cost
 * of those rows with the same tables, indexes and triggers, without jobs, payment or finding where a batch ends (the
 * list's contact ids are read before the clock starts).
 */
async function timeRawCopy(target: ScaleTarget, list: BenchList): Promise<RawCopyResult> {
  const campaignId = await createCampaign(target, list, { draft: true })
  const writer = await openPeek(target.database, { writable: true })
  try {
    const ids = await writer.all<{ id: number }>('select id from contacts where address_book_id = ? order by id', [list.id])
    const sendAt = Date.now() + 86_400_000
    const runCpuBefore = runCpu(target)
    const started = performance.now()
    let written = 0
    for (let i = 0; i < ids.length; i += COPY_BATCH) {
      const from = i === 0 ? 0 : Number(ids[i - 1]!.id)
      const to = Number(ids[Math.min(i + COPY_BATCH, ids.length) - 1]!.id)
      await writer.run('begin')
      written += await writer.run(
        `insert into messages (campaign_id, account_id, contact_id, address_book_id, address, variables, status, queued, next_attempt_at, updated_at)
         select ?, c.account_id, c.id, c.address_book_id, c.email, c.variables, 0, 1, ?, ?
         from contacts c
         where c.address_book_id = ? and c.id > ? and c.id <= ? and c.status = 1
           and not exists (select 1 from email_blacklist b where b.account_id = ? and b.email = c.email)`,
        [campaignId, sendAt, Date.now(), list.id, from, to, list.accountId],
      )
      await writer.run('commit')
    }
    const seconds = (performance.now() - started) / 1000
    const runCpuAfter = runCpu(target)
    if (written !== list.recipients) throw new Error(`the reference copy wrote ${written} messages, expected ${list.recipients}`)
    return { size: list.size, recipients: list.recipients, seconds, runCpuSeconds: runCpuBefore === null || runCpuAfter === null ? null : runCpuAfter - runCpuBefore }
  } finally {
    await writer.close()
  }
}

/**
 * Starts a campaign to the list that sends at once (through the capture channel, as no relay is set) and returns
 * when its recipients are copied and it is sending (status 2), or already sent. For measurements made while a
 * campaign sends.
 */
async function startSendingCampaign(target: ScaleTarget, list: BenchList): Promise<StartedSend> {
  const startedAt = performance.now()
  const campaignId = await createCampaign(target, list)
  const status = await statusLeaves(target, campaignId, [13], `the copy of ${list.size}`)
  if (status !== 2 && status !== 3) throw new Error(`campaign ${campaignId} went to status ${status} instead of sending`)
  return { campaignId, recipients: list.recipients, startedAt, copiedAt: performance.now() }
}

interface StartedSend {
  campaignId: number
  recipients: number
  startedAt: number
  copiedAt: number
}

/** Waits until the campaign is sent (status 3, read from the database every 20 ms). */
async function sendTime(target: ScaleTarget, send: StartedSend): Promise<SendTime> {
  await statusLeaves(target, send.campaignId, [2], `the send of campaign ${send.campaignId}`)
  if ((await storedStatus(target, send.campaignId)) !== 3) throw new Error(`campaign ${send.campaignId} left sending for status ${await storedStatus(target, send.campaignId)}`)
  const ended = performance.now()
  const sendingSeconds = (ended - send.copiedAt) / 1000
  return { seconds: (ended - send.startedAt) / 1000, sendingSeconds, messagesPerSecond: send.recipients / sendingSeconds }
}

async function timeSending(target: ScaleTarget, list: BenchList): Promise<SendingResult> {
  const referenceList = await loadList(target, REFERENCE_LIST_SIZE, 'r-')
  const reference = await startSendingCampaign(target, referenceList)
  await sendTime(target, reference)
  const key = await signingKeyOf(target.peek, target.database.env)
  await checkTokensAsSent(target.server.base, target.headers, reference.campaignId, target.peek, key)
  const idleBefore = await timeIdleHits(target, key, new SentMessages(target.peek, reference.campaignId), 'the reference campaign')
  printHits(`idle, before (a campaign of ${fmt(referenceList.recipients, 0)} sent)`, idleBefore)

  let bare: SendTime | undefined
  if (SENDING_BARE) {
    console.log(`  sending a campaign of ${fmt(list.recipients, 0)}, no request while it sends …`)
    bare = await sendTime(target, await startSendingCampaign(target, list))
    printSend('sent', bare)
  }
  console.log(`  sending a campaign of ${fmt(list.recipients, 0)}, probed …`)
  const send = await startSendingCampaign(target, list)
  const path = `/campaigns/${send.campaignId}`
  // Each answer must count every recipient, whatever their status.
  const checkRead = (status: number, body: string) => {
    if (status !== 200) throw new Error(`GET ${path} answered ${status}: ${body.slice(0, 300)}`)
    const c = JSON.parse(body) as { statistics: { general: { count: number }[] } }
    const counted = c.statistics.general.reduce((n, g) => n + g.count, 0)
    if (counted !== list.recipients) throw new Error(`GET ${path} counted ${counted} messages while sending, expected ${list.recipients}`)
  }
  let probed: SendTime | undefined
  const sent = sendTime(target, send).then((t) => (probed = t))
  const messages = new SentMessages(target.peek, send.campaignId)
  const reads: number[] = []
  const hits: Record<HitKind, number[]> = { pixel: [], click: [] }
  const client = new SequentialClient(target.server.base)
  try {
    // One request at a time, the next as soon as the last is answered: the read, a pixel, a click, again.
    while (probed === undefined) {
      const read = await client.get(path, target.headers)
      checkRead(read.status, read.body)
      reads.push(read.ms)
      for (const kind of HIT_KINDS) {
        const id = probed === undefined ? await messages.next() : undefined
        if (id !== undefined) hits[kind].push(await client.hit(kind, id, key))
        else await sleep(POLL_MS)
      }
    }
  } finally {
    client.close()
    await sent
  }
  const readWhileSending = summarize(reads)
  const hitsWhileSending = { pixel: summarize(hits.pixel), click: summarize(hits.click) }
  printSend('sent', probed)
  console.log(`  GET ${path} while sending: p50 ${fmt(readWhileSending.p50Ms, 2)} ms, p99 ${fmt(readWhileSending.p99Ms, 2)} ms (${readWhileSending.requests} requests)`)
  printHits('while sending', hitsWhileSending)
  const idleAfter = await timeIdleHits(target, key, messages, 'the sent campaign')
  printHits('idle, after', idleAfter)
  await expectHitsRecorded(target, send.campaignId, { pixel: hits.pixel.length + HITS_WARMUP + HITS_REQUESTS, click: hits.click.length + HITS_WARMUP + HITS_REQUESTS })
  return { messages: list.recipients, bare, probed: probed!, seconds: probed!.seconds, readWhileSending, hitsWhileSending, idleBefore, idleAfter }
}

const HIT_KINDS: readonly HitKind[] = ['pixel', 'click']

/** Pixels and clicks in turn on the idle server, each to a message of `messages` not hit before. */
async function timeIdleHits(target: ScaleTarget, key: Buffer, messages: SentMessages, what: string): Promise<HitLatencies> {
  const client = new SequentialClient(target.server.base)
  const times: Record<HitKind, number[]> = { pixel: [], click: [] }
  try {
    for (let i = 0; i < HITS_WARMUP + HITS_REQUESTS; i++) {
      for (const kind of HIT_KINDS) {
        const id = await messages.next()
        if (id === undefined) throw new Error(`${what}: no sent message left to hit`)
        const ms = await client.hit(kind, id, key)
        if (i >= HITS_WARMUP) times[kind].push(ms)
      }
    }
  } finally {
    client.close()
  }
  return { pixel: summarize(times.pixel), click: summarize(times.click) }
}

/** Every hit answered was recorded: each pixel opened its message (a click opens its own too), each click counted. */
async function expectHitsRecorded(target: ScaleTarget, campaignId: number, answered: Record<HitKind, number>): Promise<void> {
  const opened = await target.peek.row<{ n: number }>('select count(*) as n from messages where campaign_id = ? and opened_at is not null', [campaignId])
  const clicks = await target.peek.row<{ n: number }>('select coalesce(sum(clicks), 0) as n from campaign_link_clicks where campaign_id = ?', [campaignId])
  if (Number(opened?.n) !== answered.pixel + answered.click || Number(clicks?.n) !== answered.click) {
    throw new Error(`campaign ${campaignId}: ${opened?.n} messages opened and ${clicks?.n} clicks counted; ${answered.pixel} pixels and ${answered.click} clicks were answered`)
  }
}

function printSend(what: string, t: SendTime): void {
  console.log(`  ${what} in ${fmt(t.seconds, 1)} s from POST /campaigns; the sending alone ${fmt(t.sendingSeconds, 1)} s, ${fmt(t.messagesPerSecond, 0)} messages/s`)
}

function printHits(what: string, h: HitLatencies): void {
  const text = (s: LatencySummary) => `p50 ${fmt(s.p50Ms, 2)}, p90 ${fmt(s.p90Ms, 2)}, p99 ${fmt(s.p99Ms, 2)} ms (${s.requests})`
  console.log(`  ${what}: pixel ${text(h.pixel)}; click ${text(h.click)}`)
}

function report(results: TargetResult[]): void {
  const goals: { met: boolean; goal: string; value: string }[] = []
  for (const r of results) {
    const copy = r.copies.find((c) => c.size === COPY_GOAL_SIZE)
    if (copy && r.dialect === 'sqlite') goals.push({ goal: `${r.dialect}: copy of ${fmt(COPY_GOAL_SIZE, 0)} recipients ≤ ${COPY_GOAL_SECONDS} s`, value: `${fmt(copy.seconds, 2)} s`, met: copy.seconds <= COPY_GOAL_SECONDS })
    const read = r.reads.find((x) => x.autocannon)
    if (read) goals.push({ goal: `${r.dialect}: GET /campaigns/{id} of ${fmt(read.messages, 0)} messages, p99 < ${READ_P99_GOAL_MS} ms (sequential)`, value: `${fmt(read.sequential.p99Ms, 2)} ms`, met: read.sequential.p99Ms < READ_P99_GOAL_MS })
  }
  const date = new Date().toISOString()
  const environment = {
    ...machine(),
    sizes: SIZES,
    scenarios: SCENARIOS,
    sendingSize: SENDING_SIZE,
    sendingBare: SENDING_BARE,
    hitsRequests: HITS_REQUESTS,
    postgres: TARGETS.includes('postgres') ? postgresSource() : null,
    commit: run('git', ['rev-parse', '--short', 'HEAD']).trim(),
    profiled: PROFILE,
  }
  const file = writeResults('scale-of-work', { date, environment, results, goals })

  console.log('\n| database | list | recipients | copy (s) | recipients/s | CPU: server / the run (s) | reference: the INSERT … SELECT alone (s, CPU s) | reference / copy (time, CPU) |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  for (const r of results) {
    for (const c of r.copies) {
      const raw = r.rawCopy?.size === c.size ? r.rawCopy : undefined
      const cpuRatio = raw?.runCpuSeconds && c.runCpuSeconds ? fmt(raw.runCpuSeconds / c.runCpuSeconds, 2) : '–'
      console.log(`| ${r.dialect} | ${fmt(c.size, 0)} | ${fmt(c.recipients, 0)} | ${fmt(c.seconds, 2)} | ${fmt(c.recipientsPerSecond, 0)} | ${cpuText(c.serverCpuSeconds)} / ${cpuText(c.runCpuSeconds)} | ${raw ? `${fmt(raw.seconds, 2)}, ${cpuText(raw.runCpuSeconds)}` : '–'} | ${raw ? `${fmt(raw.seconds / c.seconds, 2)}, ${cpuRatio}` : '–'} |`)
    }
  }
  console.log('\n| database | request | p50 (ms) | p90 (ms) | p99 (ms) | req/s | p50 / p50 of the smallest |')
  console.log('|---|---|---:|---:|---:|---:|---:|')
  for (const r of results) {
    const smallest = r.reads[0]
    for (const read of r.reads) {
      const s = read.sequential
      console.log(`| ${r.dialect} | GET /campaigns/{id}, ${fmt(read.messages, 0)} messages (sequential, ${s.requests}) | ${fmt(s.p50Ms, 2)} | ${fmt(s.p90Ms, 2)} | ${fmt(s.p99Ms, 2)} | ${fmt(1000 / s.meanMs, 0)} | ${smallest ? fmt(s.p50Ms / smallest.sequential.p50Ms, 2) : '–'} |`)
      const a = read.autocannon
      if (a) console.log(`| ${r.dialect} | the same (autocannon, ${a.connections} connections) | ${a.p50Ms} | – | ${a.p99Ms} | ${fmt(a.reqPerSec, 0)} | |`)
    }
    if (r.sending) {
      const s = r.sending.readWhileSending
      console.log(`| ${r.dialect} | GET /campaigns/{id} while ${fmt(r.sending.messages, 0)} are sent (${fmt(r.sending.seconds, 1)} s; sequential, ${s.requests}) | ${fmt(s.p50Ms, 2)} | ${fmt(s.p90Ms, 2)} | ${fmt(s.p99Ms, 2)} | ${fmt(1000 / s.meanMs, 0)} | |`)
    }
  }
  if (results.some((r) => r.sending)) {
    console.log('\n| database | hit | idle before: p50 / p90 / p99 (ms) | while sending: p50 / p90 / p99 (ms) | idle after: p50 / p90 / p99 (ms) | p99 sending / idle before |')
    console.log('|---|---|---:|---:|---:|---:|')
    const text = (s: LatencySummary) => `${fmt(s.p50Ms, 2)} / ${fmt(s.p90Ms, 2)} / ${fmt(s.p99Ms, 2)} (${s.requests})`
    for (const r of results) {
      if (!r.sending) continue
      for (const kind of HIT_KINDS) {
        const [before, during, after] = [r.sending.idleBefore[kind], r.sending.hitsWhileSending[kind], r.sending.idleAfter[kind]]
        console.log(`| ${r.dialect} | ${kind === 'pixel' ? 'open pixel' : 'click redirect'} | ${text(before)} | ${text(during)} | ${text(after)} | ${fmt(during.p99Ms / before.p99Ms, 1)} |`)
      }
    }
    console.log('\n| database | messages | sent with no request: s, messages/s | sent while probed: s, messages/s | probed / bare (time) |')
    console.log('|---|---:|---:|---:|---:|')
    for (const r of results) {
      const s = r.sending
      if (!s) continue
      const t = (x: SendTime) => `${fmt(x.sendingSeconds, 1)}, ${fmt(x.messagesPerSecond, 0)}`
      console.log(`| ${r.dialect} | ${fmt(s.messages, 0)} | ${s.bare ? t(s.bare) : '–'} | ${t(s.probed)} | ${s.bare ? fmt(s.probed.sendingSeconds / s.bare.sendingSeconds, 2) : '–'} |`)
    }
  }
  console.log('')
  for (const r of results) {
    const loads = Object.entries(r.loadSeconds).map(([size, s]) => `${fmt(Number(size), 0)} in ${fmt(s, 1)} s`).join(', ')
    console.log(`${r.dialect}: load average ${fmt(r.load1AtStart, 1)} at the start; lists loaded (${loads}); server peak RSS ${r.serverPeakRssMiB === null ? '–' : fmt(r.serverPeakRssMiB, 0)} MiB`)
    if (r.profile) printProfile(r.dialect, r.profile, `the copy of ${fmt(Math.max(...SIZES), 0)}`)
  }
  printGoals(goals, environment, file)
}

/** The CPU time of the run's processes on SQLite (see CopyResult.runCpuSeconds). */
function runCpu(target: ScaleTarget): number | null {
  return target.database.dialect === 'sqlite' ? treeCpuSeconds(process.pid) : null
}

function cpuText(seconds: number | null): string {
  return seconds === null ? '–' : fmt(seconds, 1)
}

function sum(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0)
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err)
  process.exitCode = 1
})
