// Real `tidings` processes for the chaos test: started through tsx like the other CLI tests, killed with SIGKILL
// and started again with the same arguments (an API process on the same port, so its clients find it again).
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'

const CLI = ['--import', 'tsx', 'src/cli/index.ts']
/** A process that has not said it runs within this is reported (a loaded 2-core machine starts tsx in 2-5 s). */
const START_WITHIN_MS = 60_000

export type Role = 'serve' | 'api' | 'worker'

export interface TidingsProcess {
  name: string
  role: Role
  /** The API's base URL (serve and api). */
  url: string
  /** Starts it and resolves once it says it serves or runs. */
  start(): Promise<void>
  /** SIGKILL: no clean-up of any kind, as a crash or the OOM killer. */
  kill(): Promise<void>
  /** SIGTERM, as an operator stops it; SIGKILL after 10 s. */
  stop(): Promise<void>
  /** Said it serves or runs, and has not been killed or stopped since. */
  ready(): boolean
}

const READY: Record<Role, string> = { serve: 'tidings is serving', api: 'tidings is serving', worker: 'tidings worker is running' }

/** `serve` (API and dispatcher), `api` (`serve --no-dispatch`) on `port`, or a `worker`. */
export function tidingsProcess(name: string, role: Role, env: NodeJS.ProcessEnv, port = 0): TidingsProcess {
  const args = role === 'worker' ? ['worker'] : ['serve', '--host', '127.0.0.1', '--port', String(port), ...(role === 'api' ? ['--no-dispatch'] : [])]
  let child: ChildProcess | undefined
  let exited: Promise<void> = Promise.resolve()
  let isReady = false
  const ready = READY[role]
  return {
    name,
    role,
    url: `http://127.0.0.1:${port}`,
    start: async () => {
      const started = spawn(process.execPath, [...CLI, ...args], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
      child = started
      exited = new Promise((resolve) => started.on('close', () => resolve()))
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name} did not start within ${START_WITHIN_MS} ms`)), START_WITHIN_MS)
        started.on('close', (code, signal) => reject(new Error(`${name} exited (${code ?? signal}) before it ran`)))
        // Access lines come by the hundred: only the one line looked for is parsed.
        createInterface({ input: started.stdout! }).on('line', (line) => {
          if (line.includes(ready)) {
            isReady = true
            clearTimeout(timer)
            resolve()
          }
        })
      })
    },
    kill: async () => {
      isReady = false
      child?.kill('SIGKILL')
      await exited
    },
    stop: async () => {
      isReady = false
      if (!child || child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const killLater = setTimeout(() => child?.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(killLater)
    },
    ready: () => isReady,
  }
}
