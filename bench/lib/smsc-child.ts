// The test SMSC in a process of its own (bench/lib/smsc-process.ts), started and asked from a benchmark: its URL,
// its pid (for CPU time), and its counts over IPC. Running it apart keeps its CPU off the measuring event loop
// and off the server's.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { ROOT } from './env.js'

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
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/smsc-process.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const first = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next()
  if (first.done) throw new Error('the SMSC process exited before it printed its port')
  const { url } = JSON.parse(first.value as string) as { url: string }
  // Answers come back in the order asked: one queue of waiting callers.
  const waiting: ((counts: SmscCounts) => void)[] = []
  child.on('message', (message: { type?: string } & SmscCounts) => {
    if (message.type === 'counts') waiting.shift()?.({ submits: message.submits, receiptsAcknowledged: message.receiptsAcknowledged })
  })
  return {
    url,
    pid: child.pid!,
    counts: () =>
      new Promise((resolve, reject) => {
        if (!child.connected) return reject(new Error('the SMSC process is gone'))
        waiting.push(resolve)
        child.send({ type: 'counts' })
      }),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    },
  }
}
