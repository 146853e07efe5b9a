// Chaos (issue 20, item 2): campaigns of every channel (email with a webhook subscribed, SMS over SMPP, Viber through
// the Vonage stand-in) sent by real `tidings` processes while processes are SIGKILLed at random moments and started
// again, and (PostgreSQL) the database is stopped and started once, while a client keeps calling the API. After it:
// no message lost (each recipient one final status, reached its peer; sent twice only within the batches in flight),
// no webhook event lost, every campaign ended, the ledger adds up, the API answered 503 with the error body while the
// database was away (never a hang), and whatever the client was told succeeded is stored.
//   PostgreSQL: `serve --no-dispatch` ×2 and `worker` ×2; each round kills a worker and an API process, the first
//   round also restarts PostgreSQL. SQLite: one `serve`, killed once a round.
// TIDINGS_CHAOS_SEED: replays a run (the seed is printed by every run); `random` draws a new one, as `npm run chaos`
// does. CI uses a fixed seed: the same moments every run. TIDINGS_CHAOS_ROUNDS (CI 1) and TIDINGS_CHAOS_SCALE (CI 1:
// 400 emails, 150 SMS and 150 Viber messages a round) make the on-demand run longer.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startWorld, type World } from '../../helpers/chaos/world.js'
import { planRun } from '../../helpers/chaos/plan.js'
import { emptyMeasures, runRound, type RoundCampaigns } from '../../helpers/chaos/round.js'
import { startChaosClient } from '../../helpers/chaos/client.js'
import { checkAll } from '../../helpers/chaos/checks.js'

const CI_SEED = 20
const SEED_SETTING = process.env.TIDINGS_CHAOS_SEED
const SEED = SEED_SETTING === 'random' ? Math.floor(Math.random() * 2 ** 31) : SEED_SETTING ? Number(SEED_SETTING) : CI_SEED
const ROUNDS = Number(process.env.TIDINGS_CHAOS_ROUNDS ?? 1)
const SCALE = Number(process.env.TIDINGS_CHAOS_SCALE ?? 1)

for (const dialect of DIALECTS) {
  describe(`chaos on ${dialect}`, () => {
    let world: World
    let startMs = 0
    before(async () => {
      const started = Date.now()
      world = await startWorld(dialect, ROUNDS)
      startMs = Date.now() - started
    })
    after(async () => {
      await world?.close()
    })

    it(`loses no message, event or write while processes are killed (seed ${SEED})`, async (t) => {
      const started = Date.now()
      const plan = planRun(SEED, dialect, ROUNDS)
      t.diagnostic(`chaos seed ${SEED} (TIDINGS_CHAOS_SEED=${SEED} replays it), ${ROUNDS} round(s) at scale ${SCALE} on ${dialect}`)
      const measures = emptyMeasures()
      const client = startChaosClient(() => world.apis.map((p) => p.url), world.email.account.token, `${dialect} client`)
      const rounds: RoundCampaigns[] = []
      try {
        for (const [i, disruptions] of plan.entries()) rounds.push(await runRound(world, i, SCALE, disruptions, measures))
      } finally {
        await client.stop()
        for (const p of [...world.apis, ...world.workers]) for (const line of p.errors.slice(0, 5)) t.diagnostic(`${p.name} logged: ${line}`)
      }
      const sentMs = Date.now() - started
      const found = await checkAll(world, rounds, measures, client.log)
      for (const line of [...measures.events, ...found.figures]) t.diagnostic(line)
      const restarts = measures.restartMs
      const earlyExits = [...world.apis, ...world.workers].filter((p) => p.earlyExits > 0).map((p) => `${p.name} ×${p.earlyExits}`)
      if (earlyExits.length > 0) t.diagnostic(`exited at start while the database was away, started again a second later: ${earlyExits.join(', ')}`)
      t.diagnostic(`${measures.kills} kills; a killed process served again ${Math.min(...restarts)}-${Math.max(...restarts)} ms after its start; set-up ${seconds(startMs)}, rounds ${seconds(sentMs)}, checks ${seconds(Date.now() - started - sentMs)}`)
      assert.deepEqual(found.failures, [])
    })
  })
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}
