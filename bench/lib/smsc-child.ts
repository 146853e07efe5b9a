// The test SMSC in a process of its own (bench/lib/smsc-process.ts), started and asked from a benchmark: its URL,
// its pid (for CPU time), and its counts over IPC. Running it apart keeps its CPU off the measuring event loop
// and off the server's.
import { startIpcChild } from './ipc-child.js'

export interface SmscCounts {
  /** submit_sm received since the SMSC started. */
  submits: number
  /** Receipts an ESME answered with ESME_ROK since the SMSC started. */
  receiptsAcknowledged: number
}

export interface SmscProcess {
  url: string
  pid: number
  counts(): Promise<SmscCounts>
  stop(): Promise<void>
}

/** Starts bench/lib/smsc-process.ts with IPC; `env` may set BENCH_SMSC_RECEIPTS and BENCH_SMSC_DELAY_MS. */
export async function startSmscProcess(env: NodeJS.ProcessEnv = process.env): Promise<SmscProcess> {
  const child = await startIpcChild<{ url: string }>('bench/lib/smsc-process.ts', 'the SMSC process', env)
  return {
    url: child.hello.url,
    pid: child.pid,
    counts: async () => {
      const { submits, receiptsAcknowledged } = (await child.ask('counts')) as unknown as SmscCounts
      return { submits, receiptsAcknowledged }
    },
    stop: () => child.stop(),
  }
}
