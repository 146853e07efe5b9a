// Real `tidings` processes for the chaos test: the built `tidings` like the other CLI tests, killed with SIGKILL
// and started again with the same arguments (an API process on the same port, so its clients find it again).
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { CLI } from '../cli.js'

/** A process that has not said it runs within this is reported (a loaded 2-core machine took 2-12 s to start it through tsx). */
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
  /** Starts that ended before it ran (the database was away): started again a second later. */
  earlyExits: number
  /** Its log lines at level error or fatal, but for answers of 5xx (an outage's 503s). */
  errors: string[]
}

const READY: Record<Role, string> = { serve: 'tidings is serving', api: 'tidings is serving', worker: 'tidings worker is running' }

/** `serve` (API and dispatcher), `api` (`serve --no-dispatch`) on `port`, or a `worker`. */
export function tidingsProcess(name: string, role: Role, env: NodeJS.ProcessEnv, port = 0): TidingsProcess {
  const args = role === 'worker' ? ['worker'] : ['serve', '--host', '127.0.0.1', '--port', String(port), ...(role === 'api' ? ['--no-dispatch'] : [])]
  let child: ChildProcess | undefined
  let exited: Promise<void> = Promise.resolve()
  let isReady = false
  const ready = READY[role]

  /** Resolves once the process says it runs (undefined), or how it exited before. */
  const startOnce = async (deadline: number): Promise<string | undefined> => {
    const started = spawn(process.execPath, [...CLI, ...args], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
    child = started
    exited = new Promise((resolve) => started.on('close', () => resolve()))
    const hung = setTimeout(() => started.kill('SIGKILL'), Math.max(0, deadline - Date.now()))
    return new Promise<string | undefined>((resolve) => {
      started.on('close', (code, signal) => {
        clearTimeout(hung)
        resolve(`exited (${code ?? signal}) before it ran`)
      })
      // Access lines come by the hundred: only the one line looked for is parsed.
      createInterface({ input: started.stdout! }).on('line', (line) => {
        // Errors (pino level 50 and up) are kept for the report, but for the 503s of an outage ("request failed").
        if (/"level":(5|6)0/.test(line) && !line.includes('"msg":"request failed"')) process_.errors.push(line.slice(0, 2000))
        if (line.includes(ready)) {
          clearTimeout(hung)
          isReady = true
          resolve(undefined)
        }
      })
    })
  }

  const process_: TidingsProcess = {
    name,
    role,
    url: `http://127.0.0.1:${port}`,
    start: async () => {
      // As a supervisor does (systemd's Restart=on-failure, RestartSec=1): a process that cannot reach the database
      // when it starts exits ("database migration failed") and is started again a second later.
      const deadline = Date.now() + START_WITHIN_MS
      for (;;) {
        const exitedEarly = await startOnce(deadline)
        if (!exitedEarly) return
        process_.earlyExits++
        if (Date.now() > deadline) throw new Error(`${name} did not start within ${START_WITHIN_MS} ms: ${exitedEarly}`)
        await sleep(1000)
      }
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
    earlyExits: 0,
    errors: [],
  }
  return process_
}
