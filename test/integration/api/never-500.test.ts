// Every operation of the API document, fed hostile input (wrong types, nulls, huge and control-character
// strings, nested lists, broken bodies, odd path values): the answer is a 2xx or a 4xx with SendPulse's JSON
// error body — never a 500 — on both databases.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { InjectOptions } from 'fastify'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'

interface Operation {
  method: string
  path: string
  bodyFields: string[]
  queryFields: string[]
}

const HOSTILE_VALUES: unknown[] = [null, -1, 0, 1e308, 1.5, true, '', ' ', 'x'.repeat(20_000), '\u0000\u0007', '💥', {}, { a: { b: [1] } }, [], [null], [{}], ['a@b.com'], 'a:1:{i:0;s:7:"a@b.com";}']
const PATH_VALUES = ['1', '999999999', '0', '-5', 'abc', 'a@b.com', '%2F..%2F', '9'.repeat(40), 'x'.repeat(300)]
const RAW_BODIES: { type: string; body: string }[] = [
  { type: 'application/json', body: '{"unclosed": ' },
  { type: 'application/json', body: '[1, 2, 3]' },
  { type: 'application/json', body: '"just a string"' },
  { type: 'application/json', body: 'null' },
  { type: 'application/x-www-form-urlencoded', body: 'a[b][c][d][e][f]=1&emails[0][variables][x][y]=2&%ZZ=3' },
  { type: 'text/plain', body: 'hello' },
]

function operationsOf(document: { paths: Record<string, Record<string, { requestBody?: unknown; parameters?: { name: string; in: string }[] }>> }): Operation[] {
  const out: Operation[] = []
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const schema = (operation.requestBody as { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } | undefined)?.content
      const bodyFields = Object.keys(Object.values(schema ?? {})[0]?.schema?.properties ?? {})
      const queryFields = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name)
      out.push({ method: method.toUpperCase(), path, bodyFields, queryFields })
    }
  }
  return out
}

function withPath(path: string, value: string): string {
  return path.replace(/\{[^}]+\}/g, value)
}

/** Pages for people (HTML, images), not API operations: their errors are pages too. */
const PUBLIC_PAGES = ['/confirm', '/template-previews', '/t/', '/s/', '/v/', '/archive/']

for (const dialect of DIALECTS) {
  describe(`hostile input on every operation on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    let operations: Operation[]

    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account()
      await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Existing' } })
      operations = operationsOf((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json())
    })
    after(() => t.close())

    it('answers every request with a 2xx or a JSON 4xx, never a 500', async () => {
      assert.ok(operations.length >= 40, `the document lists the operations (${operations.length})`)
      let requests = 0
      for (const op of operations) {
        const tries: InjectOptions[] = []
        for (const value of PATH_VALUES) tries.push({ method: op.method as InjectOptions['method'], url: withPath(op.path, value), payload: {} })
        const url = withPath(op.path, '1')
        for (const field of op.bodyFields) for (const value of HOSTILE_VALUES) tries.push({ method: op.method as InjectOptions['method'], url, payload: { [field]: value } })
        for (const field of op.queryFields) {
          for (const value of ['abc', '-1', '1e999', '%', '[]', '{"a":']) tries.push({ method: op.method as InjectOptions['method'], url: `${url}?${field}=${encodeURIComponent(value)}` })
        }
        for (const raw of RAW_BODIES) tries.push({ method: op.method as InjectOptions['method'], url, headers: { 'content-type': raw.type }, payload: raw.body })
        for (const options of tries) {
          const res = await t.call(account, options)
          requests++
          const where = `${options.method} ${options.url} ${JSON.stringify(options.payload)?.slice(0, 200)}`
          assert.ok(res.statusCode < 500, `${where} → ${res.statusCode} ${res.body.slice(0, 300)}`)
          if (res.statusCode >= 400 && !PUBLIC_PAGES.some((prefix) => op.path.startsWith(prefix))) {
            const body = res.json<{ error_code?: unknown; message?: unknown }>()
            assert.ok(typeof body.message === 'string' && typeof body.error_code === 'number', `${where} → ${res.statusCode} ${res.body.slice(0, 300)}`)
          }
        }
      }
      assert.ok(requests > 1000, `enough requests to mean something (${requests})`)
    })
  })
}
