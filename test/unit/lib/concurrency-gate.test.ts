import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ConcurrencyGate } from '../../../src/lib/concurrency-gate.js'

describe('ConcurrencyGate', () => {
  it('runs at most `limit` tasks at once, queues `queue` more in order and refuses the rest at once', async () => {
    const gate = new ConcurrencyGate({ limit: 2, queue: 3 })
    let running = 0
    let peak = 0
    const started: number[] = []
    const releases: (() => void)[] = []
    const task = (n: number) => async () => {
      started.push(n)
      peak = Math.max(peak, ++running)
      await new Promise<void>((resolve) => releases.push(resolve))
      running--
      return n
    }
    const outcomes = Array.from({ length: 8 }, (_, n) => gate.run(task(n)))
    const refused = await Promise.all(outcomes.slice(5))
    assert.deepEqual(refused, [{ admitted: false }, { admitted: false }, { admitted: false }])
    while (started.length < 5 || releases.length > 0) {
      releases.shift()?.()
      await new Promise((resolve) => setImmediate(resolve))
    }
    assert.deepEqual(await Promise.all(outcomes.slice(0, 5)), [0, 1, 2, 3, 4].map((value) => ({ admitted: true, value })))
    assert.deepEqual(started, [0, 1, 2, 3, 4])
    assert.equal(peak, 2)
    assert.deepEqual(await gate.run(async () => 'again'), { admitted: true, value: 'again' }, 'every slot came back')
  })

  it('frees the slot of a task that throws', async () => {
    const gate = new ConcurrencyGate({ limit: 1, queue: 0 })
    await assert.rejects(gate.run(async () => Promise.reject(new Error('boom'))), /boom/)
    assert.deepEqual(await gate.run(async () => 1), { admitted: true, value: 1 })
  })
})
