// The random moments of a chaos run, all drawn from one seed (fast-check's generator) before it starts, so that a
// run is replayed by its seed. A moment is a share of a round's messages that reached their peers, not a time:
// on a loaded machine a kill still lands in the middle of the sending.
import fc from 'fast-check'
import type { Dialect } from '../../../src/storage/db.js'

export type Action = 'kill-worker' | 'kill-api' | 'restart-database'

export interface Disruption {
  /** Share of the round's messages that reached their peers before it happens (0 to 1). */
  at: number
  action: Action
  /** Which process of its kind (modulo how many there are). */
  target: number
  /** How long the process or the database stays down before it is started again. */
  downMs: number
}

const moment = (min: number, max: number) => fc.double({ min, max, noNaN: true })

/**
 * PostgreSQL: each round kills a worker and an API process, and the first restarts the database as well. SQLite
 * (one `serve`, counted as the API process): each round kills it once (while it starts again nothing is sent: a
 * kill costs a round 3-7 s). Kills stop at 85 % so that the end of a round is seen with every process up.
 */
function roundOf(dialect: Dialect, first: boolean): fc.Arbitrary<Disruption[]> {
  const down = fc.integer({ min: 0, max: 1500 })
  const kill = (action: Action, min: number, max: number) =>
    fc.record({ at: moment(min, max), action: fc.constant(action), target: fc.nat(7), downMs: down })
  const plan =
    dialect === 'sqlite'
      ? fc.tuple(kill('kill-api', 0.1, 0.85))
      : fc.tuple(
          kill('kill-worker', 0.1, 0.85),
          kill('kill-api', 0.1, 0.85),
          ...(first ? [fc.record({ at: moment(0.3, 0.6), action: fc.constant<Action>('restart-database'), target: fc.constant(0), downMs: fc.integer({ min: 1000, max: 3000 }) })] : []),
        )
  return plan.map((disruptions) => [...disruptions].sort((a, b) => a.at - b.at))
}

export function planRun(seed: number, dialect: Dialect, rounds: number): Disruption[][] {
  const run = fc.tuple(...Array.from({ length: rounds }, (_, i) => roundOf(dialect, i === 0)))
  return fc.sample(run, { seed, numRuns: 1 })[0]!
}
