// A client of the API during the chaos: creates lists, adds contacts and reads them back over HTTP through each
// API process in turn, and remembers what it was told. Every answer must be a 200, a 503 with SendPulse's error
// body, or a refused/dropped connection (its process was killed); anything else, and any call that does not end
// within CALL_WITHIN_MS, is a failure. Afterwards, whatever it was told succeeded must be stored, and what failed is
// stored whole or not at all.
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * A call must end within this: a database that is away is known within the 5 s connect timeout (and at once when
 * its port refuses), a killed process at once.
 */
export const CALL_WITHIN_MS = 10_000
/** Pause between calls: about 30 calls a second, enough to meet every outage, light on a 2-core machine. */
const PAUSE_MS = 30
/** Contacts added by one call: all of them are stored, or (the call failed) all or none. */
const CONTACTS_A_CALL = 3

export interface ClientLog {
  calls: number
  ok: number
  unavailable: number
  connectionErrors: number
  /** Calls answered otherwise (a 500, an unexpected 4xx, a 503 without the error body) or that did not end in time. */
  failures: string[]
  /** Slowest 503, in ms. */
  slowest503Ms: number
  /** Lists the client was told were created (id → name). */
  lists: Map<number, string>
  /** Every call that added contacts (several at once), with whether it was told they were added. */
  additions: { listId: number; emails: string[]; told: boolean }[]
}

export interface ChaosClient {
  log: ClientLog
  stop(): Promise<void>
}

type Outcome = { kind: 'ok'; body: unknown } | { kind: 'unavailable' } | { kind: 'connection' } | { kind: 'failure' }

/** Runs until stop(), sending the calls of `token`'s account to `urls()` in turn (the API processes). */
export function startChaosClient(urls: () => string[], token: string, label: string): ChaosClient {
  const log: ClientLog = { calls: 0, ok: 0, unavailable: 0, connectionErrors: 0, failures: [], slowest503Ms: 0, lists: new Map(), additions: [] }
  let running = true
  let turn = 0
  let serial = 0

  async function call(method: string, path: string, body?: unknown): Promise<Outcome> {
    const all = urls()
    const base = all[turn++ % all.length]
    log.calls++
    const started = Date.now()
    try {
      const answer = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(CALL_WITHIN_MS),
      })
      const text = await answer.text()
      if (answer.status === 200) {
        log.ok++
        return { kind: 'ok', body: JSON.parse(text) as unknown }
      }
      if (answer.status === 503 && isErrorBody(text, 503)) {
        log.unavailable++
        log.slowest503Ms = Math.max(log.slowest503Ms, Date.now() - started)
        return { kind: 'unavailable' }
      }
      log.failures.push(`${method} ${path}: ${answer.status} ${text.slice(0, 200)}`)
      return { kind: 'failure' }
    } catch (err) {
      if (err instanceof Error && err.name === 'TimeoutError') {
        log.failures.push(`${method} ${path}: no answer within ${CALL_WITHIN_MS} ms`)
        return { kind: 'failure' }
      }
      // fetch's "fetch failed", caused by ECONNREFUSED, ECONNRESET or "other side closed".
      log.connectionErrors++
      return { kind: 'connection' }
    }
  }

  async function step(): Promise<void> {
    const ids = [...log.lists.keys()]
    if (ids.length === 0 || serial % 4 === 0) {
      const name = `${label} list ${++serial}`
      const created = await call('POST', '/addressbooks', { bookName: name })
      if (created.kind === 'ok') log.lists.set((created.body as { id: number }).id, name)
      return
    }
    const id = ids[serial % ids.length]!
    if (serial % 4 === 3) {
      const read = await call('GET', `/addressbooks/${id}`)
      const name = read.kind === 'ok' ? (read.body as { name?: string }[])[0]?.name : log.lists.get(id)
      if (name !== log.lists.get(id)) log.failures.push(`GET /addressbooks/${id}: named ${name}, created as ${log.lists.get(id)}`)
      serial++
      return
    }
    const emails = Array.from({ length: CONTACTS_A_CALL }, (_, i) => `${label.replace(/\W/g, '')}.${++serial}.${i}@client.example`)
    const added = await call('POST', `/addressbooks/${id}/emails`, { emails: emails.map((email) => ({ email, variables: { name: 'Client' } })) })
    log.additions.push({ listId: id, emails, told: added.kind === 'ok' })
  }

  const loop = (async () => {
    while (running) {
      await step()
      await sleep(PAUSE_MS)
    }
  })()
  return {
    log,
    stop: async () => {
      running = false
      await loop
    },
  }
}

/** SendPulse's error body: exactly `{error_code, message}`, the code being the status. */
export function isErrorBody(text: string, status: number): boolean {
  try {
    const body = JSON.parse(text) as Record<string, unknown>
    return Object.keys(body).sort().join() === 'error_code,message' && body.error_code === status && typeof body.message === 'string'
  } catch {
    return false
  }
}
