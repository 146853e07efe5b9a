// How the dispatcher's loops wait out a database outage: one warning, pauses of 1 s doubling up to 10 s, one
// line when the database answers again; other failures are not an outage and keep their usual handling.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import pino from 'pino'
import { OutagePacing } from '../../../src/dispatcher/outage.js'
import { fromDatabase } from '../../../src/storage/db.js'

function logged() {
  const lines: { level: number; msg: string }[] = []
  const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => done(void lines.push(JSON.parse(chunk.toString()) as { level: number; msg: string })) })
  return { lines, log: pino({ level: 'info' }, sink) }
}

// As the pool of openDatabase raises it: noted as the driver's (fromDatabase).
const refused = fromDatabase(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))

describe('OutagePacing', () => {
  it('pauses 1 s after the first failed round, doubling up to 10 s, and warns once', () => {
    const { lines, log } = logged()
    const outage = new OutagePacing(log)
    assert.deepEqual([1, 2, 3, 4, 5, 6].map(() => outage.pauseAfter(refused)), [1000, 2000, 4000, 8000, 10_000, 10_000])
    assert.deepEqual(lines.map((l) => [l.level, l.msg]), [[40, 'database unavailable: pausing until it answers']])
  })

  it('says once that the database answers again, and starts from 1 s at the next outage', () => {
    const { lines, log } = logged()
    const outage = new OutagePacing(log)
    outage.pauseAfter(refused)
    outage.pauseAfter(refused)
    outage.succeeded()
    outage.succeeded()
    assert.equal(outage.pauseAfter(refused), 1000)
    assert.deepEqual(lines.map((l) => l.msg), ['database unavailable: pausing until it answers', 'database answers again: resuming', 'database unavailable: pausing until it answers'])
  })

  it('leaves other failures to the caller', () => {
    const { lines, log } = logged()
    const outage = new OutagePacing(log)
    assert.equal(outage.pauseAfter(new Error('no handler for job kind "x"')), undefined)
    outage.succeeded()
    assert.deepEqual(lines, [])
  })
})
