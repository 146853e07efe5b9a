// HTTP from a benchmark: JSON calls, and requests timed one at a time over one kept-alive connection, whose
// latencies are exact to the microsecond (autocannon's histogram counts whole milliseconds).
import { Agent, request } from 'node:http'

export async function json<T>(url: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(url, init)
  const text = await res.text()
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${res.status}: ${text}`)
  return JSON.parse(text) as T
}

export interface LatencySummary {
  requests: number
  /** Every latency, when asked for (`keepTimes`): to merge summaries of several runs exactly. */
  times?: number[]
  p50Ms: number
  p90Ms: number
  p99Ms: number
  maxMs: number
  meanMs: number
}

/**
 * GETs `paths()` one after the other on one keep-alive connection, `warmup` times untimed, then `count`
 * times timed (from writing the request to the last byte of the answer), or fewer when the timed requests
 * take longer than `maxSeconds`. Every answer must be a 200, and pass `check` when one is given.
 */
export async function timeSequentialGets(
  base: string,
  headers: Record<string, string>,
  paths: () => string,
  options: { count: number; warmup: number; maxSeconds?: number; check?: (body: string) => void; keepTimes?: boolean },
): Promise<LatencySummary> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const { hostname, port } = new URL(base)
  const get = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const started = process.hrtime.bigint()
      const req = request({ host: hostname, port, path, headers, agent }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6
          if (res.statusCode !== 200) reject(new Error(`GET ${path} answered ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 300)}`))
          else {
            try {
              options.check?.(Buffer.concat(chunks).toString())
              resolve(ms)
            } catch (err) {
              reject(err as Error)
            }
          }
        })
      })
      req.on('error', reject)
      req.end()
    })
  try {
    for (let i = 0; i < options.warmup; i++) await get(paths())
    const times: number[] = []
    const deadline = performance.now() + (options.maxSeconds ?? Infinity) * 1000
    for (let i = 0; i < options.count && performance.now() < deadline; i++) times.push(await get(paths()))
    return options.keepTimes ? { ...summarize(times), times } : summarize(times)
  } finally {
    agent.destroy()
  }
}

export function summarize(times: number[]): LatencySummary {
  const sorted = [...times].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0
  return {
    requests: sorted.length,
    p50Ms: at(0.5),
    p90Ms: at(0.9),
    p99Ms: at(0.99),
    maxMs: sorted.at(-1) ?? 0,
    meanMs: sorted.reduce((s, t) => s + t, 0) / Math.max(1, sorted.length),
  }
}
