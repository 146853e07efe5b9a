// The Vonage stand-in in a process of its own (bench/lib/vonage-process.ts), started and asked from a benchmark:
// its URL and credentials, its pid (for CPU time), and over IPC its counts, the window of its 202s and the round
// trip of every callback. Running it apart keeps its CPU off the measuring event loop and off the server's.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import type { CallbackTime } from '../../test/helpers/vonage.js'
import { ROOT } from './env.js'

export interface VonageCounts {
  /** Requests received since the stand-in started. */
  requests: number
  /** Requests answered 202. */
  accepted: number
  maxInFlight: number
  /** Callbacks answered 2xx, and attempts answered otherwise (sent again 100 ms later). */
  callbacksAcknowledged: number
  callbackAttemptsRefused: number
  /** When the first and the latest 202 since the last reset were written (ms since the epoch, to the µs). */
  firstAcceptedAt: number | null
  lastAcceptedAt: number | null
}

export interface VonageProcess {
  url: string
  /** `apiKey:apiSecret`, as TIDINGS_VIBER_TOKEN takes it. */
  credentials: string
  signatureSecret: string
  pid: number
  counts(): Promise<VonageCounts>
  /** Every callback answered 2xx since the last reset. */
  callbackTimes(): Promise<CallbackTime[]>
  /** Forgets the window of 202s and the callback times (the counts keep counting). */
  reset(): Promise<void>
  stop(): Promise<void>
}

/** Starts bench/lib/vonage-process.ts with IPC; `env` may set BENCH_VONAGE_OUTCOME, BENCH_VONAGE_DELAY_MS and the credentials. */
export async function startVonageProcess(env: NodeJS.ProcessEnv = process.env): Promise<VonageProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/vonage-process.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const first = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next()
  if (first.done) throw new Error('the Vonage stand-in exited before it printed its port')
  const { url, credentials, signatureSecret } = JSON.parse(first.value as string) as { url: string; credentials: string; signatureSecret: string }
  // The process answers every message at once, in the order asked: one queue of waiting callers.
  const waiting: ((message: Record<string, unknown>) => void)[] = []
  child.on('message', (message: Record<string, unknown>) => waiting.shift()?.(message))
  const ask = (type: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      if (!child.connected) return reject(new Error('the Vonage stand-in is gone'))
      waiting.push(resolve)
      child.send({ type })
    })
  return {
    url,
    credentials,
    signatureSecret,
    pid: child.pid!,
    counts: async () => {
      const { type: _type, ...counts } = await ask('counts')
      return counts as unknown as VonageCounts
    },
    callbackTimes: async () => {
      const { sentAt, ms } = (await ask('callbackTimes')) as { sentAt: number[]; ms: number[] }
      return sentAt.map((at, i) => ({ sentAt: at, ms: ms[i]! }))
    },
    reset: async () => void (await ask('reset')),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    },
  }
}
