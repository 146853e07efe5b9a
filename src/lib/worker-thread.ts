// One worker thread that runs jobs for the main thread, one at a time, in the order asked: CPU work (parsing
// a 1 MB request body) moves off the thread that answers requests and writes to SQLite. The worker starts on
// first use and stops after a minute without work, so an idle server pays nothing for it. A worker that dies
// (out of memory, a crash) fails only the job it was running and is replaced on the next job: jobs wait here,
// not in the worker's queue, so no other job is lost with it.
import { parentPort, Worker, type ResourceLimits, type Transferable, type WorkerOptions } from 'node:worker_threads'

/**
 * Stops an idle worker, which holds 35–65 MB of memory; starting one (loading its modules) took 1.1–1.4 s on
 * the busy 2-core development machine: an import pays it once, not once per request.
 */
const IDLE_MS = 60_000

interface Job<In, Out> {
  input: In
  transfer: readonly Transferable[]
  resolve(value: Out): void
  reject(err: Error): void
}

type Answer<Out> = { value: Out } | { error: { name: string; message: string } }

/** The error a job gets when its worker died while running it; `code` is Node's (ERR_WORKER_OUT_OF_MEMORY …). */
export class WorkerDied extends Error {
  constructor(readonly code: string | undefined, cause: unknown) {
    super(`the worker thread stopped: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
  }
}

export class WorkerThread<In, Out> {
  private worker: Worker | undefined
  private running: Job<In, Out> | undefined
  private readonly waiting: Job<In, Out>[] = []
  private idleTimer: NodeJS.Timeout | undefined

  /** `script` must call serveJobs with the function to run. */
  constructor(
    private readonly script: URL,
    private readonly resourceLimits: ResourceLimits,
  ) {}

  /** Runs the job on the worker; `transfer` lists buffers of `input` handed over rather than copied. */
  run(input: In, transfer: readonly Transferable[] = []): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ input, transfer, resolve, reject })
      this.next()
    })
  }

  /** Stops the worker (jobs waiting start a new one). */
  async stop(): Promise<void> {
    const worker = this.worker
    this.worker = undefined
    clearTimeout(this.idleTimer)
    const job = this.running
    this.running = undefined
    job?.reject(new WorkerDied(undefined, new Error('stopped')))
    await worker?.terminate()
  }

  private next(): void {
    if (this.running || this.waiting.length === 0) return
    clearTimeout(this.idleTimer)
    const job = (this.running = this.waiting.shift()!)
    try {
      const worker = this.current()
      // A job in flight keeps the process alive; an idle worker does not.
      worker.ref()
      worker.postMessage(job.input, [...job.transfer])
    } catch (err) {
      // An input that cannot be cloned: this job fails, the next one goes.
      this.running = undefined
      job.reject(err instanceof Error ? err : new Error(String(err)))
      if (this.waiting.length > 0) this.next()
      else this.idle()
    }
  }

  private current(): Worker {
    if (this.worker) return this.worker
    const worker = startWorker(this.script, { resourceLimits: this.resourceLimits })
    worker.on('message', (answer: Answer<Out>) => this.settle(worker, answer))
    worker.on('error', (err) => this.died(worker, err))
    worker.on('exit', (code) => this.died(worker, new Error(`exit code ${code}`)))
    return (this.worker = worker)
  }

  private settle(worker: Worker, answer: Answer<Out>): void {
    const job = this.running
    if (worker !== this.worker || !job) return
    this.running = undefined
    if ('value' in answer) job.resolve(answer.value)
    else job.reject(Object.assign(new Error(answer.error.message), { name: answer.error.name }))
    if (this.waiting.length > 0) this.next()
    else this.idle()
  }

  private idle(): void {
    this.worker?.unref()
    this.idleTimer = setTimeout(() => void this.stop(), IDLE_MS).unref()
  }

  private died(worker: Worker, cause: unknown): void {
    if (worker !== this.worker) return
    this.worker = undefined
    const job = this.running
    this.running = undefined
    job?.reject(new WorkerDied((cause as { code?: string } | null)?.code, cause))
    this.next()
  }
}

/**
 * A script in TypeScript (the tests run the sources through tsx) is loaded through tsx's loader: Node 20
 * does not run `--import` hooks in workers. The built server runs the compiled script directly.
 */
function startWorker(script: URL, options: WorkerOptions): Worker {
  if (!script.pathname.endsWith('.ts')) return new Worker(script, { ...options, execArgv: workerExecArgv() })
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(script.href)}) })`
  return new Worker(boot, { ...options, eval: true })
}

/**
 * The process's options less a CPU profile's file name (`node --cpu-prof --cpu-prof-name …`, BENCH_PROFILE=1):
 * the worker would write its profile under that name over the main thread's; unnamed, it gets its own.
 */
function workerExecArgv(): string[] {
  const options: string[] = []
  for (let i = 0; i < process.execArgv.length; i++) {
    const option = process.execArgv[i]!
    if (option === '--cpu-prof-name') i++
    else if (!option.startsWith('--cpu-prof-name=')) options.push(option)
  }
  return options
}

/**
 * In the worker's script: answers each job with `work(input)`. A thrown error goes back as its name and
 * message (the main thread sees an Error); anything the caller must tell apart belongs in the value.
 */
export function serveJobs<In, Out>(work: (input: In) => { value: Out; transfer?: Transferable[] }): void {
  const port = parentPort
  if (!port) throw new Error('serveJobs runs in a worker thread')
  port.on('message', (input: In) => {
    let answer: Answer<Out>
    let transfer: Transferable[] = []
    try {
      const done = work(input)
      answer = { value: done.value }
      transfer = done.transfer ?? []
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err))
      answer = { error: { name: e.name, message: e.message } }
    }
    port.postMessage(answer, transfer)
  })
}
