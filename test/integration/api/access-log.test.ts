// The access log: one line per request at the default level, with what an operator looks for; the line
// Fastify writes when a request arrives only at debug.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import pino from 'pino'
import type { FastifyInstance } from 'fastify'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { buildServer } from '../../../src/api/server.js'

type Line = Record<string, unknown> & { msg?: string; reqId?: string }

/** A server over the test app's database whose log lines land in `lines`. */
async function loggingServer(t: TestApp, level: string): Promise<{ app: FastifyInstance; lines: Line[] }> {
  const lines: Line[] = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n')) if (text) lines.push(JSON.parse(text) as Line)
      done()
    },
  })
  const app = await buildServer({ ...t.deps, log: pino({ level }, sink) })
  await app.ready()
  return { app, lines }
}

for (const dialect of DIALECTS) {
  describe(`access log on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account()
    })
    after(() => t.close())

    const get = (app: FastifyInstance, url: string, requestId: string) =>
      app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${account.token}`, 'x-request-id': requestId }, remoteAddress: '192.0.2.7' })

    it('writes one line per request at info: request id, method, URL, client, status and time', async () => {
      const { app, lines } = await loggingServer(t, 'info')
      try {
        assert.equal((await get(app, '/addressbooks?limit=5', 'req-ok')).statusCode, 200)
        assert.equal((await get(app, '/addressbooks/999999', 'req-missing')).statusCode, 404)
      } finally {
        await app.close()
      }
      const ok = lines.filter((l) => l.reqId === 'req-ok')
      assert.deepEqual(ok.map((l) => l.msg), ['request completed'])
      const line = ok[0]!
      assert.equal(line.level, 30)
      assert.deepEqual(line.req, { method: 'GET', url: '/addressbooks?limit=5', host: 'localhost:80', remoteAddress: '192.0.2.7' })
      assert.deepEqual(line.res, { statusCode: 200 })
      assert.equal(typeof line.responseTime, 'number')
      const missing = lines.filter((l) => l.reqId === 'req-missing' && l.msg === 'request completed')
      assert.deepEqual(missing.map((l) => (l.res as { statusCode: number }).statusCode), [404])
      assert.ok(!lines.some((l) => l.msg === 'incoming request'), 'no line when a request arrives')
      assert.ok(!JSON.stringify(lines).includes(account.token), 'no bearer token in the log')
    })

    it('writes the line of an arriving request at debug', async () => {
      const { app, lines } = await loggingServer(t, 'debug')
      try {
        await get(app, '/addressbooks', 'req-debug')
      } finally {
        await app.close()
      }
      assert.deepEqual(lines.filter((l) => l.reqId === 'req-debug').map((l) => l.msg), ['incoming request', 'request completed'])
    })
  })
}
