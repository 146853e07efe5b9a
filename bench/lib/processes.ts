// Child processes of a benchmark: servers (kept apart from the measuring event loop), one-shot commands, and
// their peak memory.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, RESULTS_DIR } from './env.js'

export const PROFILE = process.env.BENCH_PROFILE === '1'

export interface Child {
  process: ChildProcess
  output(): string
  stop(): Promise<void>
}

/** Starts a server process; keeps the tail of its output to show if it fails. */
export function startChild(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let tail = ''
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000)
  }
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const exited = new Promise<void>((done) => child.once('exit', () => done()))
  return {
    process: child,
    output: () => tail,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => {
        console.warn(`${name} did not stop within 10 s; killing it`)
        child.kill('SIGKILL')
      }, 10_000)
      await exited
      clearTimeout(timer)
    },
  }
}

/** `node --cpu-prof` arguments when BENCH_PROFILE=1: profiles go to bench/results/profiles/. */
export function profileArgs(name: string): string[] {
  if (!PROFILE) return []
  const dir = join(RESULTS_DIR, 'profiles')
  mkdirSync(dir, { recursive: true })
  return ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', `${name}-${Date.now()}.cpuprofile`]
}

/** Runs a command to completion and returns its stdout; throws with its stderr when it fails. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(command, args, { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${r.status}):\n${r.stderr}${r.stdout}`)
  return r.stdout
}

/** Builds dist/ unless BENCH_SKIP_BUILD=1: the servers run the compiled code. */
export function buildUnlessSkipped(): void {
  if (process.env.BENCH_SKIP_BUILD !== '1') run('npm', ['run', 'build', '--silent'])
}

export async function waitFor(url: string, child: Child, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.process.exitCode !== null) throw new Error(`server exited (${child.process.exitCode}) before answering:\n${child.output()}`)
    try {
      const res = await fetch(url)
      await res.arrayBuffer()
      if (res.ok) return
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${child.output()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** The peak resident set size of a running process in MiB (VmHWM in /proc/<pid>/status; Linux only). */
export function peakRssMiB(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : null
  } catch {
    return null
  }
}
