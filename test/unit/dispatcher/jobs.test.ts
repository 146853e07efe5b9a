// The retry policy of the job runner: exponential backoff from 1 s, capped at 10 minutes.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { nextAttemptAt } from '../../../src/dispatcher/jobs.js'

const NOW = 1_700_000_000_000

describe('nextAttemptAt', () => {
  it('waits 1 s after the first failed attempt and doubles the wait after each further one', () => {
    assert.deepEqual([1, 2, 3, 4, 5].map((attempts) => nextAttemptAt(attempts, NOW) - NOW), [1000, 2000, 4000, 8000, 16000])
  })

  it('never waits more than 10 minutes, even after very many attempts', () => {
    assert.equal(nextAttemptAt(10, NOW) - NOW, 512_000)
    assert.equal(nextAttemptAt(11, NOW) - NOW, 600_000)
    assert.equal(nextAttemptAt(5000, NOW) - NOW, 600_000)
  })

  it('treats zero or negative attempts as the first', () => {
    assert.equal(nextAttemptAt(0, NOW) - NOW, 1000)
    assert.equal(nextAttemptAt(-3, NOW) - NOW, 1000)
  })

  it('counts from the given time', () => {
    assert.equal(nextAttemptAt(2, 0), 2000)
  })
})
