// The Vonage stand-in in a process of its own (bench/lib/vonage-process.ts), started and asked from a benchmark:
// its URL and credentials, its pid (for CPU time), and over IPC its counts, the window of its 202s and the round
// trip of every callback. Running it apart keeps its CPU off the measuring event loop and off the server's.
import type { CallbackTime } from '../../test/helpers/vonage.js'
import { startIpcChild } from './ipc-child.js'

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
  const child = await startIpcChild<{ url: string; credentials: string; signatureSecret: string }>('bench/lib/vonage-process.ts', 'the Vonage stand-in', env)
  return {
    url: child.hello.url,
    credentials: child.hello.credentials,
    signatureSecret: child.hello.signatureSecret,
    pid: child.pid,
    counts: async () => {
      const { type: _type, ...counts } = await child.ask('counts')
      return counts as unknown as VonageCounts
    },
    callbackTimes: async () => {
      const { sentAt, ms } = (await child.ask('callbackTimes')) as { sentAt: number[]; ms: number[] }
      return sentAt.map((at, i) => ({ sentAt: at, ms: ms[i]! }))
    },
    reset: async () => void (await child.ask('reset')),
    stop: () => child.stop(),
  }
}
