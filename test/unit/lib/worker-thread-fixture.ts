// The worker of worker-thread.test.ts: answers a number doubled, and misbehaves on request.
import { serveJobs } from '../../../src/lib/worker-thread.js'

const hoard: unknown[] = []

serveJobs<{ do: 'double' | 'throw' | 'exit' | 'hoard'; n?: number }, number>((job) => {
  if (job.do === 'throw') throw new TypeError('asked to throw')
  if (job.do === 'exit') process.exit(3)
  // Keeps every allocation until the heap limit ends the worker.
  if (job.do === 'hoard') for (;;) hoard.push(new Array(100_000).fill({ n: job.n }))
  return { value: (job.n ?? 0) * 2 }
})
