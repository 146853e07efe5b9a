// A benchmark's helper process (the SMSC, the Vonage stand-in): started with IPC, its first stdout line read as
// JSON (where it listens), then asked questions answered in the order asked, and stopped (SIGKILL after 5 s).
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { ROOT } from './env.js'

export interface IpcChild<Hello> {
  hello: Hello
  pid: number
  ask(type: string): Promise<Record<string, unknown>>
  stop(): Promise<void>
}

/** Starts `script` (a path from the repository's root) under tsx; `what` names it in errors. */
export async function startIpcChild<Hello>(script: string, what: string, env: NodeJS.ProcessEnv): Promise<IpcChild<Hello>> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const first = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next()
  if (first.done) throw new Error(`${what} exited before it printed its port`)
  // The process answers every question at once, in the order asked: one queue of waiting callers.
  const waiting: ((message: Record<string, unknown>) => void)[] = []
  child.on('message', (message: Record<string, unknown>) => waiting.shift()?.(message))
  return {
    hello: JSON.parse(first.value as string) as Hello,
    pid: child.pid!,
    ask: (type) =>
      new Promise((resolve, reject) => {
        if (!child.connected) return reject(new Error(`${what} is gone`))
        waiting.push(resolve)
        child.send({ type })
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
