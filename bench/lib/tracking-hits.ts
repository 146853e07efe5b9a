// The tracking hits of bench:api: GETs of open pixels and click redirects, each request to the next message's
// token, every answer checked (status, headers that matter, body or Location), and the bare Fastify route that
// answers the same bytes as the reference.
import { autocannon, type AutocannonRequest } from './autocannon.js'
import { CLICK_TARGET, type TrackedMessage } from './sent-campaign.js'

export type HitKind = 'pixel' | 'click'

/** The GIF Tidings serves (src/tracking/routes.ts). */
const PIXEL_BASE64 = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'
// autocannon gathers a body as a string (each chunk decoded as UTF-8): compared in that form, with its length.
const PIXEL_AS_RECEIVED = Buffer.from(PIXEL_BASE64, 'base64').toString()
const PIXEL_BYTES = String(Buffer.from(PIXEL_BASE64, 'base64').length)

/** Whether an answer is the right one for its kind; `why` says what was wrong. */
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

export interface HitLoad {
  reqPerSec: number
  latency: { p50: number; p99: number; average: number; max: number }
  totalRequests: number
  errors: number
  timeouts: number
  /** Answers that were not the expected one (wrong status, headers, body or Location). */
  wrong: number
  firstWrong: string | undefined
  /** Requests built and answers received, the warm-up's included: the hits the server may have recorded. */
  built: number
  answered: number
  statusCodes: Record<string, number>
  durationSeconds: number
}

/**
 * `connections` keep-alive connections GET the hits' paths of `messages` for `duration` seconds, each request the
 * next message (round robin over all of them), after `warmup` seconds that are not counted.
 */
export async function loadHits(o: { base: string; kind: HitKind; messages: readonly TrackedMessage[]; connections: number; duration: number; warmup: number }): Promise<HitLoad> {
  let next = 0
  let answered = 0
  let wrong = 0
  let firstWrong: string | undefined
  const request: AutocannonRequest = {
    method: 'GET',
    setupRequest: (r) => {
      const m = o.messages[next++ % o.messages.length]!
      return { ...r, path: o.kind === 'pixel' ? m.pixel : m.click }
    },
    onResponse: (status, body, _context, headers) => {
      answered++
      const why = checkAnswer(o.kind, status, body, headers)
      if (why === undefined) return
      wrong++
      firstWrong ??= why
    },
  }
  const run = (duration: number) => autocannon({ url: o.base, connections: o.connections, duration, requests: [request] })
  if (o.warmup > 0) await run(o.warmup)
  wrong = 0
  firstWrong = undefined
  const r = await run(o.duration)
  return {
    reqPerSec: r.requests.average,
    latency: { p50: r.latency.p50, p99: r.latency.p99, average: r.latency.average, max: r.latency.max },
    totalRequests: Object.values(r.statusCodeStats).reduce((n, s) => n + Number(s.count), 0),
    errors: r.errors,
    timeouts: r.timeouts,
    wrong,
    firstWrong,
    built: next,
    answered,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, Number(s.count)])),
    durationSeconds: r.duration,
  }
}

/**
 * The reference: Fastify's defaults (no logger), the two routes with the paths of Tidings', answering what
 * Tidings answers a valid token (the same status, body, Location and the headers checkAnswer reads) with no
 * token check and no database.
 */
export const BARE_TRACKING_SERVER = `
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
