// The tracking hits of bench:api: GETs of open pixels and click redirects, each request to the next message's
// token, every answer checked (status, headers that matter, body or Location); the bare Fastify routes that
// answer the same bytes as the reference; and loads in rounds that alternate between Tidings and the reference.
import { autocannon, type AutocannonRequest } from './autocannon.js'
import { CLICK_TARGET, type TrackedMessage } from './sent-campaign.js'
import { startChild, profileArgs, waitFor } from './processes.js'
import { freePort } from './tidings.js'
import { cpuSeconds } from './proc-stats.js'

export type HitKind = 'pixel' | 'click'

/** The GIF Tidings serves (src/tracking/routes.ts). */
const PIXEL_BASE64 = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'
// autocannon gathers a body as a string (each chunk decoded as UTF-8): compared in that form, with its length.
const PIXEL_AS_RECEIVED = Buffer.from(PIXEL_BASE64, 'base64').toString()
const PIXEL_BYTES = String(Buffer.from(PIXEL_BASE64, 'base64').length)

/** What is wrong with an answer; undefined when it is the right one for its kind. */
export function checkAnswer(kind: HitKind, status: number, body: string, headers: Record<string, string>): string | undefined {
  if (kind === 'pixel') {
    if (status !== 200) return `status ${status}`
    if (headers['content-type'] !== 'image/gif') return `content-type ${headers['content-type']}`
    if (headers['cache-control'] !== 'no-store, private') return `cache-control ${headers['cache-control']}`
    if (headers['content-length'] !== PIXEL_BYTES || body !== PIXEL_AS_RECEIVED) return 'not the GIF'
    return undefined
  }
  if (status !== 302) return `status ${status}`
  if (headers.location !== CLICK_TARGET) return `location ${headers.location}`
  if (headers['cache-control'] !== 'no-store' || headers['referrer-policy'] !== 'no-referrer') return `cache-control ${headers['cache-control']}, referrer-policy ${headers['referrer-policy']}`
  return undefined
}

/** A server loaded with hits: its messages, taken round robin across every load of one kind. */
export interface HitTarget {
  base: string
  /** The server's process: its CPU time per request is read around each load. */
  pid: number
  messages: readonly TrackedMessage[]
  /** Per kind, the warm-ups' included: requests built and answers received (what the server may have recorded). */
  sent: Record<HitKind, { built: number; answered: number }>
}

export function hitTarget(base: string, pid: number, messages: readonly TrackedMessage[]): HitTarget {
  return { base, pid, messages, sent: { pixel: { built: 0, answered: 0 }, click: { built: 0, answered: 0 } } }
}

export interface HitLoad {
  reqPerSec: number
  latency: { p50: number; p99: number; average: number; max: number }
  totalRequests: number
  errors: number
  timeouts: number
  /** Answers that were not the expected one (wrong status, headers, body or Location). */
  wrong: number
  firstWrong: string | undefined
  statusCodes: Record<string, number>
  durationSeconds: number
  /**
   * CPU time of the server's process (all threads, /proc) per answer, in µs: what each costs the server whatever
   * else the machine runs, where req/s depends on the share of the cores it gets. Null off Linux.
   */
  cpuMicrosPerRequest: number | null
  /** Rounds: req/s of each (the figures above are their medians, or sums for the counts). */
  rounds: number[]
}

/** `connections` keep-alive connections GET the target's hits of one kind for `duration` seconds. */
async function loadOnce(target: HitTarget, kind: HitKind, o: { connections: number; duration: number }): Promise<HitLoad> {
  const sent = target.sent[kind]
  let wrong = 0
  let firstWrong: string | undefined
  const request: AutocannonRequest = {
    method: 'GET',
    setupRequest: (r) => {
      const m = target.messages[sent.built++ % target.messages.length]!
      return { ...r, path: kind === 'pixel' ? m.pixel : m.click }
    },
    onResponse: (status, body, _context, headers) => {
      sent.answered++
      const why = checkAnswer(kind, status, body, headers)
      if (why === undefined) return
      wrong++
      firstWrong ??= why
    },
  }
  const cpuBefore = cpuSeconds(target.pid)
  const answeredBefore = sent.answered
  const r = await autocannon({ url: target.base, connections: o.connections, duration: o.duration, requests: [request] })
  const cpuAfter = cpuSeconds(target.pid)
  const answered = sent.answered - answeredBefore
  return {
    reqPerSec: r.requests.average,
    latency: { p50: r.latency.p50, p99: r.latency.p99, average: r.latency.average, max: r.latency.max },
    totalRequests: Object.values(r.statusCodeStats).reduce((n, s) => n + Number(s.count), 0),
    errors: r.errors,
    timeouts: r.timeouts,
    wrong,
    firstWrong,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, Number(s.count)])),
    durationSeconds: r.duration,
    cpuMicrosPerRequest: cpuBefore === null || cpuAfter === null || answered === 0 ? null : ((cpuAfter - cpuBefore) * 1e6) / answered,
    rounds: [r.requests.average],
  }
}

/**
 * Loads Tidings and the reference with one kind of hit in `rounds` rounds that alternate (Tidings, reference,
 * Tidings, …), each after a warm-up of its own that is not counted: the load of a shared machine drifts, and
 * each ratio compares rounds seconds apart, not minutes. Each side's figures are the medians of its rounds.
 */
export async function loadInRounds(
  kind: HitKind,
  targets: { tidings?: HitTarget; bare?: HitTarget },
  o: { rounds: number; roundSeconds: number; warmup: number; connections: number },
): Promise<{ tidings?: HitLoad; bare?: HitLoad }> {
  const sides = (['tidings', 'bare'] as const).filter((side) => targets[side] !== undefined)
  if (o.warmup > 0) for (const side of sides) await loadOnce(targets[side]!, kind, { connections: o.connections, duration: o.warmup })
  const loads: Record<'tidings' | 'bare', HitLoad[]> = { tidings: [], bare: [] }
  for (let round = 0; round < o.rounds; round++) {
    for (const side of sides) loads[side].push(await loadOnce(targets[side]!, kind, { connections: o.connections, duration: o.roundSeconds }))
  }
  return { tidings: targets.tidings && combined(loads.tidings), bare: targets.bare && combined(loads.bare) }
}

function combined(loads: readonly HitLoad[]): HitLoad {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)
  const statusCodes: Record<string, number> = {}
  for (const l of loads) for (const [code, n] of Object.entries(l.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n
  return {
    reqPerSec: median(loads.map((l) => l.reqPerSec)),
    latency: {
      p50: median(loads.map((l) => l.latency.p50)),
      p99: median(loads.map((l) => l.latency.p99)),
      average: median(loads.map((l) => l.latency.average)),
      max: Math.max(...loads.map((l) => l.latency.max)),
    },
    totalRequests: sum(loads.map((l) => l.totalRequests)),
    errors: sum(loads.map((l) => l.errors)),
    timeouts: sum(loads.map((l) => l.timeouts)),
    wrong: sum(loads.map((l) => l.wrong)),
    firstWrong: loads.find((l) => l.firstWrong)?.firstWrong,
    statusCodes,
    durationSeconds: sum(loads.map((l) => l.durationSeconds)),
    cpuMicrosPerRequest: loads.some((l) => l.cpuMicrosPerRequest === null) ? null : median(loads.map((l) => l.cpuMicrosPerRequest!)),
    rounds: loads.map((l) => l.reqPerSec),
  }
}

/**
 * The reference: Fastify's defaults (no logger), the two routes with the paths of Tidings', answering what
 * Tidings answers a valid token (the same status, body, Location and the headers checkAnswer reads) with no
 * token check and no database.
 */
const BARE_TRACKING_SERVER = `
import Fastify from 'fastify'
const PIXEL = Buffer.from('${PIXEL_BASE64}', 'base64')
const app = Fastify()
app.get('/t/:token/open.gif', async (request, reply) => reply.header('cache-control', 'no-store, private').type('image/gif').send(PIXEL))
app.get('/t/:token/c/:index', async (request, reply) => reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(${JSON.stringify(CLICK_TARGET)}, 302))
await app.listen({ host: '127.0.0.1', port: Number(process.env.BENCH_PORT) })
const stop = () => app.close().then(() => process.exit(0))
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
`

/** The bare tracking routes in a process of their own, with paths shaped like `count` messages' of Tidings. */
export async function startBareTracking(count: number): Promise<HitTarget & { stop(): Promise<void> }> {
  const port = await freePort()
  const server = startChild('bare-fastify-tracking', 'node', [...profileArgs('bare-tracking'), '--input-type=module', '-e', BARE_TRACKING_SERVER], { ...process.env, BENCH_PORT: String(port) })
  const base = `http://127.0.0.1:${port}`
  // Tokens of Tidings' shape (base64url id, a dot, a 43-character MAC): the router does the same work.
  const messages = Array.from({ length: count }, (_, i) => {
    const token = `${Buffer.from(String(i + 1)).toString('base64url')}.${'A'.repeat(43)}`
    return { pixel: `/t/${token}/open.gif`, click: `/t/${token}/c/0` }
  })
  try {
    await waitFor(`${base}${messages[0]!.pixel}`, server)
  } catch (err) {
    await server.stop()
    throw err
  }
  return { ...hitTarget(base, server.process.pid!, messages), stop: () => server.stop() }
}
