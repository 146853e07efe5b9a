// A webhook receiver for the webhook benchmark: node:http on 127.0.0.1, answering every POST to /hook/<n> with a
// 204 once it has read and checked the body, as a receiver written for docs/webhooks.md would:
//
// - the body is parsed with `qs.parse(body, { parameterLimit: 2000 })` (above the 1000 fields a request may
//   hold, so a request over the limit is counted rather than cut);
// - the Standard Webhooks signature is checked with the `standardwebhooks` package on the first request of each
//   path and then on every `verifyEvery`th request, with the secret set for that path (a failure is counted and
//   still answered 2xx, so a wrong secret shows in the results instead of stalling the run in retries);
// - each event is counted by its `id`: a repeat is a duplicate, an id below the last one of its path (and not a
//   repeat) is out of order. Per first arrival it keeps the id, the arrival time (epoch ms, when the body had
//   been read) and the contact's index, taken from the email's leading digits (`w123.anna@…` → 123; -1 without).
//
// It runs in the benchmark's process (`where: 'process'`) or in a child process of its own (`'child'`, forked
// from bench/lib/webhook-receiver-child.ts, talking over IPC). Times are Date.now() in both, the same wall clock
// the server stamps events with.
import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import qs from 'qs'
import { Webhook } from 'standardwebhooks'

export type ReceiverPlace = 'process' | 'child'

export interface ReceiverOptions {
  /** Check the signature of every Nth request (and of each path's first); 0: only each path's first. */
  verifyEvery: number
  /** The action every event must carry (others count as malformed). */
  action: string
}

export interface ReceiverCounts {
  requests: number
  /** Events received, repeats included. */
  events: number
  /** Distinct event ids. */
  distinct: number
  duplicates: number
  outOfOrder: number
  /** Events without a numeric id, or with another action. */
  malformed: number
  /** Requests to a path other than POST /hook/<n> (answered 404). */
  strayRequests: number
  /** Requests whose content-type was not application/x-www-form-urlencoded. */
  wrongContentType: number
  signaturesChecked: number
  signatureFailures: number
  /** Requests sampled for a check whose path had no secret set. */
  signaturesUnchecked: number
  firstSignatureError: string | null
  bytes: number
  maxEventsPerRequest: number
  maxFieldsPerRequest: number
  paths: number
  /** Epoch ms: the first request's body read, the last 204 written. */
  firstArrivalMs: number | null
  lastAckMs: number | null
  /** CPU time of the receiver's process since it started (the benchmark's own process for `where: 'process'`). */
  cpuUserMs: number
  cpuSystemMs: number
  /** Event-loop delay of the receiver's process (p99, max), which shows when it answered late. */
  loopDelayP99Ms: number
  loopDelayMaxMs: number
}

export interface ReceivedEvents {
  ids: Float64Array
  arrivalMs: Float64Array
  contacts: Int32Array
  requests: ReceivedRequests
}

/** One entry per request to /hook/<n>, in order of arrival. */
export interface ReceivedRequests {
  /** Epoch ms, when its body had been read. */
  arrivalMs: number[]
  events: number[]
  /** From reading the body to writing the answer. */
  handlingMs: number[]
  /**
   * From the answer to the previous request to the same URL until this one's body was read (-1 for a URL's first):
   * with one request to a URL at a time, the sender's turnaround (recording the outcome, claiming the next batch,
   * encoding and signing it) plus the transfer.
   */
  gapMs: number[]
}

export interface WebhookReceiver {
  base: string
  place: ReceiverPlace
  pid: number
  /** The secret (whsec_…) that signs the deliveries to `path`. */
  setSecret(path: string, secret: string): Promise<void>
  counts(): Promise<ReceiverCounts>
  /** Every distinct event, in order of arrival, and every request. */
  events(): Promise<ReceivedEvents>
  stop(): Promise<void>
}

const HOOK_PATH = /^\/hook\/\d+$/
const CONTACT_INDEX = /^[a-z]*(\d+)/

/** The receiver itself; `startWebhookReceiver` runs it here or in a child process. */
export function createReceiverCore(options: ReceiverOptions) {
  const verifiers = new Map<string, Webhook>()
  const checkedPaths = new Set<string>()
  const lastIdOfPath = new Map<string, number>()
  const seen = new Set<number>()
  let ids = new Float64Array(1 << 16)
  let arrivals = new Float64Array(1 << 16)
  let contacts = new Int32Array(1 << 16)
  const c: Omit<ReceiverCounts, 'distinct' | 'paths' | 'cpuUserMs' | 'cpuSystemMs' | 'loopDelayP99Ms' | 'loopDelayMaxMs'> = {
    requests: 0,
    events: 0,
    duplicates: 0,
    outOfOrder: 0,
    malformed: 0,
    strayRequests: 0,
    wrongContentType: 0,
    signaturesChecked: 0,
    signatureFailures: 0,
    signaturesUnchecked: 0,
    firstSignatureError: null,
    bytes: 0,
    maxEventsPerRequest: 0,
    maxFieldsPerRequest: 0,
    firstArrivalMs: null,
    lastAckMs: null,
  }
  const requestLog: ReceivedRequests = { arrivalMs: [], events: [], handlingMs: [], gapMs: [] }
  /** performance.now() of the last answer to each path. */
  const answeredAt = new Map<string, number>()
  const cpuAtStart = process.cpuUsage()
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()

  const keep = (id: number, arrival: number, contact: number) => {
    const n = seen.size - 1
    if (n >= ids.length) {
      const grow = <T extends Float64Array | Int32Array>(a: T, make: (size: number) => T): T => {
        const b = make(a.length * 2)
        b.set(a)
        return b
      }
      ids = grow(ids, (s) => new Float64Array(s))
      arrivals = grow(arrivals, (s) => new Float64Array(s))
      contacts = grow(contacts, (s) => new Int32Array(s))
    }
    ids[n] = id
    arrivals[n] = arrival
    contacts[n] = contact
  }

  const check = (path: string, body: string, req: IncomingMessage) => {
    const verifier = verifiers.get(path)
    if (!verifier) return void c.signaturesUnchecked++
    c.signaturesChecked++
    try {
      verifier.verify(body, req.headers as Record<string, string>, { jsonParse: false })
    } catch (err) {
      c.signatureFailures++
      c.firstSignatureError ??= `${path}: ${(err as Error).message}`
    }
  }

  const received = (req: IncomingMessage, res: ServerResponse, body: string, arrival: number, readAt: number) => {
    const path = req.url ?? ''
    if (req.method !== 'POST' || !HOOK_PATH.test(path)) {
      c.strayRequests++
      res.writeHead(404).end()
      return
    }
    c.requests++
    c.bytes += body.length
    const previous = answeredAt.get(path)
    c.firstArrivalMs ??= arrival
    if (req.headers['content-type'] !== 'application/x-www-form-urlencoded') c.wrongContentType++
    let fields = body.length === 0 ? 0 : 1
    for (let i = body.indexOf('&'); i >= 0; i = body.indexOf('&', i + 1)) fields++
    c.maxFieldsPerRequest = Math.max(c.maxFieldsPerRequest, fields)
    if (!checkedPaths.has(path) || (options.verifyEvery > 0 && c.requests % options.verifyEvery === 0)) {
      checkedPaths.add(path)
      check(path, body, req)
    }
    // Top-level keys 0, 1, … come out in numeric order.
    const events = Object.values(qs.parse(body, { parameterLimit: 2000 })) as Record<string, unknown>[]
    c.maxEventsPerRequest = Math.max(c.maxEventsPerRequest, events.length)
    let last = lastIdOfPath.get(path) ?? 0
    for (const event of events) {
      c.events++
      const id = Number(event.id)
      if (!Number.isSafeInteger(id) || event.event !== options.action) {
        c.malformed++
        continue
      }
      if (seen.has(id)) {
        c.duplicates++
        continue
      }
      seen.add(id)
      if (id < last) c.outOfOrder++
      last = Math.max(last, id)
      const index = typeof event.email === 'string' ? CONTACT_INDEX.exec(event.email)?.[1] : undefined
      keep(id, arrival, index === undefined ? -1 : Number(index))
    }
    lastIdOfPath.set(path, last)
    res.writeHead(204).end()
    c.lastAckMs = Date.now()
    const answered = performance.now()
    answeredAt.set(path, answered)
    requestLog.arrivalMs.push(arrival)
    requestLog.events.push(events.length)
    requestLog.handlingMs.push(answered - readAt)
    requestLog.gapMs.push(previous === undefined ? -1 : readAt - previous)
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => received(req, res, Buffer.concat(chunks).toString('utf8'), Date.now(), performance.now()))
  })
  // Longer than the gaps between requests, so no idle connection is closed just as Tidings reuses it (which
  // would be a failed request, retried a second later).
  server.keepAliveTimeout = 65_000

  return {
    async listen(): Promise<number> {
      server.listen(0, '127.0.0.1')
      await once(server, 'listening')
      return (server.address() as AddressInfo).port
    },
    setSecret(path: string, secret: string): void {
      verifiers.set(path, new Webhook(secret))
    },
    counts(): ReceiverCounts {
      const cpu = process.cpuUsage(cpuAtStart)
      return {
        ...c,
        distinct: seen.size,
        paths: lastIdOfPath.size,
        cpuUserMs: cpu.user / 1000,
        cpuSystemMs: cpu.system / 1000,
        loopDelayP99Ms: loop.percentile(99) / 1e6,
        loopDelayMaxMs: loop.max / 1e6,
      }
    },
    events(): ReceivedEvents {
      const n = seen.size
      return { ids: ids.slice(0, n), arrivalMs: arrivals.slice(0, n), contacts: contacts.slice(0, n), requests: requestLog }
    },
    close(): Promise<void> {
      loop.disable()
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

export type ReceiverCore = ReturnType<typeof createReceiverCore>

/** Messages between the benchmark and a receiver in a child process. */
export type ToChild =
  | { type: 'secret'; path: string; secret: string; id: number }
  | { type: 'counts'; id: number }
  | { type: 'events'; id: number }
  | { type: 'stop'; id: number }
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never
export type FromChild = { type: 'listening'; port: number } | { type: 'answer'; id: number; value: unknown }

export async function startWebhookReceiver(place: ReceiverPlace, options: ReceiverOptions): Promise<WebhookReceiver> {
  if (place === 'process') {
    const core = createReceiverCore(options)
    const port = await core.listen()
    return {
      base: `http://127.0.0.1:${port}`,
      place,
      pid: process.pid,
      setSecret: async (path, secret) => core.setSecret(path, secret),
      counts: async () => core.counts(),
      events: async () => core.events(),
      stop: () => core.close(),
    }
  }
  return startChildReceiver(options)
}

async function startChildReceiver(options: ReceiverOptions): Promise<WebhookReceiver> {
  const file = fileURLToPath(new URL('./webhook-receiver-child.ts', import.meta.url))
  // process.execArgv carries tsx's loader, so the child runs TypeScript as this process does.
  const child: ChildProcess = fork(file, [JSON.stringify(options)], { execArgv: process.execArgv, serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const pending = new Map<number, (value: unknown) => void>()
  let nextId = 1
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`the webhook receiver exited (${code}) before listening`)))
    child.on('message', (message: FromChild) => {
      if (message.type === 'listening') resolve(message.port)
      else pending.get(message.id)?.(message.value)
    })
  })
  const ask = <T>(message: WithoutId<ToChild>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (child.exitCode !== null || child.signalCode !== null) return reject(new Error('the webhook receiver has exited'))
      const id = nextId++
      pending.set(id, (value) => {
        pending.delete(id)
        resolve(value as T)
      })
      child.send({ ...message, id } as ToChild)
    })
  return {
    base: `http://127.0.0.1:${port}`,
    place: 'child',
    pid: child.pid!,
    setSecret: (path, secret) => ask<void>({ type: 'secret', path, secret }),
    counts: () => ask<ReceiverCounts>({ type: 'counts' }),
    events: () => ask<ReceivedEvents>({ type: 'events' }),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      await ask<void>({ type: 'stop' }).catch(() => {})
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
      await exited
      clearTimeout(timer)
    },
  }
}
