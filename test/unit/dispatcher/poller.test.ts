// A busy poller must let the process answer requests between its rounds: while a campaign sends, the sender's
// rounds come back full one after another, and an open pixel waited behind 10–47 of them (docs/benchmarks.md,
// "Scale of work": p50 55 ms while sending against 0.8 ms idle).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { Poller } from '../../../src/dispatcher/poller.js'

/** Synchronous work as long as a round of the sender's (rendering, better-sqlite3's statements). */
function busy(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until);
}

describe('Poller', () => {
  it('lets I/O in between rounds that come back full', async () => {
    const server = createServer((_req, res) => res.end('ok'))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    // Enough rounds to starve the request for good, ended by the poller itself so the test always ends.
    const maxRounds = 300
    let rounds = 0
    let roundsBeforeAnswer: number | undefined
    // Two, as the campaign sender runs (parallelBatches).
    const pollers = [1, 2].map(
      () =>
        new Poller(
          async () => {
            busy(2)
            rounds++
            return rounds < maxRounds ? 1 : 0
          },
          { pollMs: 60_000, full: 1, log: pino({ level: 'silent' }), what: 'busy rounds' },
        ),
    )
    try {
      const answered = new Promise<void>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/' }, (res) => {
          res.resume()
          res.on('end', () => {
            roundsBeforeAnswer = rounds
            resolve()
          })
        })
        req.on('error', reject)
        req.end()
      })
      for (const poller of pollers) poller.start()
      await answered
      // The request is written, read by the server, answered and read back: a few turns of the event loop, each
      // of which may run a round or two.
      assert.ok(roundsBeforeAnswer! <= 20, `the request was answered after ${roundsBeforeAnswer} rounds`)
    } finally {
      await Promise.all(pollers.map((poller) => poller.stop()))
      server.close()
    }
  })
})
