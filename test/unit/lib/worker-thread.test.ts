// A worker thread that cannot take the server down: a job that throws, or a worker that exits or runs out of
// memory, fails that job alone; the next job gets a new worker, and jobs waiting meanwhile are not lost.
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { WorkerDied, WorkerThread } from '../../../src/lib/worker-thread.js'

type Job = { do: 'double' | 'throw' | 'exit' | 'hoard'; n?: number }

describe('worker thread', () => {
  const worker = new WorkerThread<Job, number>(new URL('./worker-thread-fixture.ts', import.meta.url), { maxOldGenerationSizeMb: 32 })
  after(() => worker.stop())

  it('runs jobs in the order asked', async () => {
    assert.deepEqual(await Promise.all([1, 2, 3].map((n) => worker.run({ do: 'double', n }))), [2, 4, 6])
  })

  it('hands a thrown error back to the caller and goes on', async () => {
    await assert.rejects(worker.run({ do: 'throw' }), { name: 'TypeError', message: 'asked to throw' })
    assert.equal(await worker.run({ do: 'double', n: 5 }), 10)
  })

  it('fails only the job whose worker exited, and runs the ones waiting on a new worker', async () => {
    const [exited, waiting] = await Promise.allSettled([worker.run({ do: 'exit' }), worker.run({ do: 'double', n: 7 })])
    assert.equal(exited.status, 'rejected')
    assert.ok(exited.status === 'rejected' && exited.reason instanceof WorkerDied)
    assert.deepEqual(waiting, { status: 'fulfilled', value: 14 })
  })

  it('says when its worker ran out of memory, and replaces it', async () => {
    const [hoarded, waiting] = await Promise.allSettled([worker.run({ do: 'hoard', n: 1 }), worker.run({ do: 'double', n: 8 })])
    assert.ok(hoarded.status === 'rejected' && hoarded.reason instanceof WorkerDied, String(hoarded.status === 'rejected' && hoarded.reason))
    assert.equal((hoarded.reason as WorkerDied).code, 'ERR_WORKER_OUT_OF_MEMORY')
    assert.deepEqual(waiting, { status: 'fulfilled', value: 16 })
  })

  it('fails a job it cannot send, and goes on', async () => {
    await assert.rejects(worker.run({ do: 'double', n: (() => 1) as unknown as number }), /could not be cloned/)
    assert.equal(await worker.run({ do: 'double', n: 1 }), 2)
  })
})
