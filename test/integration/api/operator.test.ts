// The operator surface: health, metrics, the generated OpenAPI document and docs.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Validator } from '@seriousme/openapi-schema-validator'
import type { KyselyPlugin } from 'kysely'
import { buildServer } from '../../../src/api/server.js'
import { compilePendingSchemas, pendingSchemaCount } from '../../../src/api/lazy-schemas.js'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'

/** Counts the queries a Kysely instance runs (on the real database; nothing is replaced). */
function queryCounter(): KyselyPlugin & { count: number } {
  return {
    count: 0,
    transformQuery(args) {
      this.count++
      return args.node
    },
    transformResult: async (args) => args.result,
  }
}

for (const dialect of DIALECTS) {
  describe(`operator endpoints on ${dialect}`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp(dialect)
    })
    after(() => t.close())

    it('answers /healthz without a token after touching the database', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/healthz' })
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json(), { status: 'ok' })
    })

    it('answers 50 /healthz at once with one database probe', async () => {
      const counter = queryCounter()
      const app = await buildServer({ ...t.deps, db: t.deps.db.withPlugin(counter) })
      try {
        await app.ready()
        const answers = await Promise.all(Array.from({ length: 50 }, () => app.inject({ method: 'GET', url: '/healthz' })))
        assert.deepEqual(new Set(answers.map((a) => a.statusCode)), new Set([200]))
        assert.equal(counter.count, 1)
      } finally {
        await app.close()
      }
    })

    it('exposes the request counter and the latency histogram in the Prometheus text format', async () => {
      const app = await buildServer(t.deps)
      try {
        await app.ready()
        const account = await t.account()
        const call = (url: string) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${account.token}` } })
        for (let i = 0; i < 3; i++) assert.equal((await call('/addressbooks')).statusCode, 200)
        assert.equal((await call('/addressbooks/424242')).statusCode, 404)
        assert.equal((await app.inject({ method: 'GET', url: '/no/such/route' })).statusCode, 404)
        const body = (await app.inject({ method: 'GET', url: '/metrics' })).body
        const lines = (prefix: string) => body.split('\n').filter((l) => l.startsWith(prefix))
        assert.deepEqual(lines('# HELP http_request'), ['# HELP http_requests_total HTTP requests answered', '# HELP http_request_duration_seconds Time from request to response'])
        assert.deepEqual(lines('# TYPE http_request'), ['# TYPE http_requests_total counter', '# TYPE http_request_duration_seconds histogram'])
        assert.deepEqual(lines('http_requests_total').sort(), [
          'http_requests_total{method="GET",route="/addressbooks",status="200"} 3',
          'http_requests_total{method="GET",route="/addressbooks/:id",status="404"} 1',
          'http_requests_total{method="GET",route="unmatched",status="404"} 1',
        ])
        const series = 'method="GET",route="/addressbooks",status="200"'
        const buckets = lines('http_request_duration_seconds_bucket').filter((l) => l.includes(series))
        const bounds = ['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '+Inf']
        assert.deepEqual(buckets.map((l) => /le="([^"]+)"/.exec(l)?.[1]), bounds)
        assert.ok(buckets.every((l) => l.startsWith(`http_request_duration_seconds_bucket{le="`) && l.includes(`",${series}} `)), buckets.join('\n'))
        const counts = buckets.map((l) => Number(l.split(' ')[1]))
        assert.ok(counts.every((n, i) => i === 0 || n >= counts[i - 1]!), 'cumulative')
        assert.equal(counts.at(-1), 3)
        assert.match(body, new RegExp(`\nhttp_request_duration_seconds_sum\\{${series}\\} \\d+(\\.\\d+)?(e-\\d+)?\n`))
        assert.match(body, new RegExp(`\nhttp_request_duration_seconds_count\\{${series}\\} 3\n`))
      } finally {
        await app.close()
      }
    })

    it('counts requests by route pattern and status in /metrics', async () => {
      const account = await t.account()
      await t.call(account, { method: 'GET', url: '/addressbooks/424242' })
      await t.call(account, { method: 'GET', url: '/addressbooks/424243' })
      const res = await t.app.inject({ method: 'GET', url: '/metrics' })
      assert.equal(res.statusCode, 200)
      assert.match(res.body, /http_requests_total\{method="GET",route="\/addressbooks\/:id",status="404"\} 2/)
      assert.match(res.body, /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/addressbooks\/:id",status="404"\} \d+/)
    })

    it('asks for TIDINGS_METRICS_TOKEN as a bearer token when it is set, with the JSON error body', async () => {
      const guarded = await startTestApp(dialect, { metricsToken: 'operator-metrics-token' })
      try {
        for (const authorization of [undefined, 'Bearer wrong-token', 'Bearer operator-metrics-tokenX', 'operator-metrics-token']) {
          const res = await guarded.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} })
          assert.equal(res.statusCode, 401, `${authorization}: ${res.body.slice(0, 100)}`)
          assert.equal(res.json<{ error_code: number }>().error_code, 401)
          assert.match(res.json<{ message: string }>().message, /token/)
        }
        const res = await guarded.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer operator-metrics-token' } })
        assert.equal(res.statusCode, 200)
        assert.match(res.body, /http_requests_total/)
      } finally {
        await guarded.close()
      }
    })

    it('serves an OpenAPI 3.1 document that validates and lists every mailing-list route', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/openapi.json' })
      const document = res.json<{ openapi: string; paths: Record<string, Record<string, unknown>> }>()
      const result = await new Validator().validate(document)
      assert.equal(result.valid, true, JSON.stringify(result.errors))
      assert.equal(document.openapi, '3.1.0')
      for (const [path, method] of [
        ['/addressbooks', 'post'], ['/addressbooks', 'get'], ['/addressbooks/{id}', 'get'], ['/addressbooks/{id}', 'put'],
        ['/addressbooks/{id}', 'delete'], ['/addressbooks/{id}/variables', 'get'], ['/addressbooks/{id}/emails/total', 'get'],
        ['/addressbooks/{id}/cost', 'get'], ['/addressbooks/{id}/campaigns', 'get'], ['/oauth/access_token', 'post'],
      ] as const) {
        assert.ok(document.paths[path]?.[method], `${method} ${path}`)
      }
    })

    it('serves the browsable docs at /docs', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/docs/' })
      assert.equal(res.statusCode, 200)
      assert.match(String(res.headers['content-type']), /text\/html/)
      assert.match(res.body, /swagger/i)
    })

    // Route schemas are compiled by their first request (api/lazy-schemas.ts): this compiles every one, so a
    // schema that Ajv or fast-json-stringify refuses fails here rather than on a user's first call.
    it('compiles the validator and answer serializer of every route', () => {
      assert.ok(pendingSchemaCount() > 100, `only ${pendingSchemaCount()} schemas waiting to be compiled`)
      compilePendingSchemas()
      assert.equal(pendingSchemaCount(), 0)
    })
  })
}
