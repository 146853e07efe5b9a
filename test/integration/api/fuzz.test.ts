// Property-based fuzzing from the API's own OpenAPI document (issue 20, item 4): for every operation, requests
// generated from its path, query and body schemas — valid values and deliberately invalid ones — sent with
// account A's token. Every answer keeps the rules of api-answer-rules.ts (never a 5xx, never HTML, SendPulse's
// error body), and account B, which holds one object of each main kind, never changes. Every failing request
// ever found is kept in fuzz-regressions.json and replayed first.
//
// TIDINGS_FUZZ_RUNS: generated requests per operation (CI: 25, ~2,650 requests per database, ~5 s on SQLite and ~15 s on PostgreSQL here; `npm run fuzz`: 1,000).
// TIDINGS_FUZZ_SEED: replay a run (printed with every run and failure); `random` for a new one each run, as `npm run
// fuzz` does. `npm test` uses a fixed seed, so that CI runs the same requests every time and a red CI means a
// change, not a new draw; the on-demand runs explore. TIDINGS_FUZZ_OPERATION: only that one operation.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import type { KnownValues } from '../../helpers/json-schema-arbitraries.js'
import { operationsOf, requestOf, type FuzzRequest, type OpenApiDocument, type Operation } from '../../helpers/openapi-requests.js'
import { answerProblem } from '../../helpers/api-answer-rules.js'
import { snapshotAccount } from '../../helpers/account-snapshot.js'
import { furnishAccount } from '../../helpers/fuzz-accounts.js'

interface Regression {
  operation: string
  request: FuzzRequest
  /** What it did when found, and what fixed it. */
  found: string
}

const RUNS = Number(process.env.TIDINGS_FUZZ_RUNS ?? 25)
const CI_SEED = 1894992861
const SEED_SETTING = process.env.TIDINGS_FUZZ_SEED
const SEED = SEED_SETTING === 'random' ? Math.floor(Math.random() * 2 ** 31) : SEED_SETTING ? Number(SEED_SETTING) : CI_SEED
const ONLY = process.env.TIDINGS_FUZZ_OPERATION
const REGRESSIONS = JSON.parse(readFileSync(new URL('./fuzz-regressions.json', import.meta.url), 'utf8')) as Regression[]

/** Reads can change nothing: B's rows are compared after each request that could write (a few ms on PostgreSQL). */
const READS = new Set(['GET', 'HEAD'])

for (const dialect of DIALECTS) {
  describe(`fuzzing every operation of /openapi.json on ${dialect}`, () => {
    let t: TestApp
    let a: TestAccount
    let operations: Operation[]
    let known: KnownValues
    let bRows: Record<string, string[]>
    let b: TestAccount

    before(async () => {
      // Thousands of calls by a few accounts on a test clock that never moves: the request limit (TIDINGS_API_RATE,
      // tested in request-limit.test.ts) would answer most of them 429 and leave the routes untested.
      t = await startTestApp(dialect, { apiRatePerSecond: 0 })
      a = await t.account('account A')
      b = await t.account('account B')
      const aKnown = await furnishAccount(t, a, 'a')
      const bKnown = await furnishAccount(t, b, 'b')
      known = { integers: [...aKnown.integers, ...bKnown.integers], strings: [...aKnown.strings, ...bKnown.strings, a.clientId, a.clientSecret] }
      operations = operationsOf((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<OpenApiDocument>())
      bRows = await snapshotAccount(t.deps, b.id)
    })
    after(() => t.close())

    const send = (request: FuzzRequest) => {
      const raw = request.headers?.['content-type'] !== undefined
      const json = !raw && request.payload !== undefined
      return t.call(a, {
        method: request.method as 'GET',
        url: request.url,
        headers: json ? { 'content-type': 'application/json' } : request.headers,
        payload: json ? JSON.stringify(request.payload) : (request.payload as string | undefined),
      })
    }

    /** Throws what is wrong with the answer to `request`, or with B's rows after it. */
    const check = async (operation: Operation, request: FuzzRequest) => {
      const res = await send(request)
      const problem = answerProblem(operation, res)
      if (problem) throw new Error(`${problem}: ${res.statusCode} ${res.body.slice(0, 300)}`)
      if (READS.has(request.method)) return
      const now = await snapshotAccount(t.deps, b.id)
      const changed = Object.keys(now).filter((table) => JSON.stringify(now[table]) !== JSON.stringify(bRows[table]))
      bRows = now
      if (changed.length > 0) throw new Error(`account B's rows changed in ${changed.join(', ')} (answer ${res.statusCode} ${res.body.slice(0, 200)})`)
    }

    it('replays every failing request fuzzing ever found', async () => {
      const failures: string[] = []
      for (const regression of REGRESSIONS) {
        const operation = operations.find((op) => op.name === regression.operation)
        assert.ok(operation, `${regression.operation} is still in the document`)
        await check(operation, regression.request).catch((err: Error) => failures.push(`${regression.operation} ${JSON.stringify(regression.request).slice(0, 300)}: ${err.message}`))
      }
      assert.deepEqual(failures, [], `\n${failures.join('\n')}`)
    })

    it(`answers ${RUNS} generated requests per operation within the rules (seed ${SEED})`, async (context) => {
      context.diagnostic(`fuzz seed ${SEED} (TIDINGS_FUZZ_SEED=${SEED} replays it), ${RUNS} runs per operation on ${dialect}`)
      assert.ok(operations.length >= 100, `the document lists the operations (${operations.length})`)
      const failures: string[] = []
      for (const operation of operations.filter((op) => !ONLY || op.name === ONLY)) {
        const details = await fc.check(
          fc.asyncProperty(requestOf(operation, known), (request) => check(operation, request)),
          { numRuns: RUNS, seed: SEED },
        )
        if (!details.failed) continue
        const [request] = details.counterexample ?? []
        const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)
        failures.push(`${operation.name} (seed ${details.seed}, path "${details.counterexamplePath}"): ${error}\n  regression entry: ${JSON.stringify({ operation: operation.name, request, found: error.slice(0, 120) })}`)
      }
      assert.deepEqual(failures, [], `\n${failures.join('\n')}`)
    })
  })
}
