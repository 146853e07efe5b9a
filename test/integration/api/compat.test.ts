// One test per COMPAT.md convention, through the mailing-list routes, on both databases.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import type { LightMyRequestResponse } from 'fastify'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'

type Book = { id: number; name: string }

for (const dialect of DIALECTS) {
  describe(`SendPulse request conventions on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    const auth = () => ({ authorization: `Bearer ${account.token}` })
    const names = (res: LightMyRequestResponse) => res.json<Book[]>().map((b) => b.name)

    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account()
      for (const name of ['one', 'two', 'three']) {
        const res = await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: name } })
        assert.equal(res.statusCode, 200)
      }
    })
    after(() => t.close())

    it('accepts a form body, ignoring PHP-bracket fields it does not know', async () => {
      const res = await t.call(account, {
        method: 'POST',
        url: '/addressbooks',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'bookName=Form+list&variables%5B0%5D%5Bname%5D=x',
      })
      assert.equal(res.statusCode, 200)
      const book = await t.call(account, { method: 'GET', url: `/addressbooks/${res.json<{ id: number }>().id}` })
      assert.equal(book.json<Book[]>()[0]?.name, 'Form list')
    })

    it('reads a JSON body on GET (the npm SDK sends limit and offset only that way)', async () => {
      const res = await t.call(account, { method: 'GET', url: '/addressbooks', payload: { limit: 1, offset: 1 } })
      assert.deepEqual(names(res), ['two'])
    })

    it('reads the body of a GET on a keep-alive connection so the next request is not corrupted', async () => {
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = new URL(address)
      const request = (body: string) =>
        `GET /addressbooks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${account.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(request('{"limit":1}') + request('{}')))
        let data = ''
        const finish = () => {
          socket.destroy()
          resolve(data)
        }
        const timer = setTimeout(finish, 3000)
        socket.on('data', (chunk) => {
          data += chunk.toString()
          if ((data.match(/HTTP\/1\.1 /g) ?? []).length >= 2 && data.trimEnd().endsWith(']')) {
            clearTimeout(timer)
            finish()
          }
        })
        socket.on('error', reject)
      })
      const statuses = raw.match(/HTTP\/1\.1 \d+/g)
      assert.deepEqual(statuses, ['HTTP/1.1 200', 'HTTP/1.1 200'])
    })

    it('reads a query string that is URL-encoded JSON, and `?{}`', async () => {
      const encoded = await t.call(account, { method: 'GET', url: `/addressbooks?${encodeURIComponent('{"limit": 1, "offset": 2}')}` })
      assert.deepEqual(names(encoded), ['three'])
      const raw = await t.call(account, { method: 'GET', url: '/addressbooks?{"limit":1}' })
      assert.deepEqual(names(raw), ['one'])
      const empty = await t.call(account, { method: 'GET', url: '/addressbooks?{}' })
      assert.ok(names(empty).length >= 3)
    })

    it('only percent-decodes a JSON query string, keeping + and & inside values', async () => {
      const created = await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'a+b&c=d' } })
      const id = created.json<{ id: number }>().id
      const res = await t.call(account, { method: 'PUT', url: `/addressbooks/${id}?${encodeURIComponent('{"name":"x+y&z=1"}').replace(/%2B/g, '+')}` })
      assert.equal(res.statusCode, 200)
      const book = await t.call(account, { method: 'GET', url: `/addressbooks/${id}` })
      assert.equal(book.json<Book[]>()[0]?.name, 'x+y&z=1')
    })

    it('treats a body of [] and an empty body as no parameters', async () => {
      const list = await t.call(account, { method: 'GET', url: '/addressbooks', headers: { 'content-type': 'application/json' }, payload: '[]' })
      assert.equal(list.statusCode, 200)
      const create = await t.call(account, { method: 'POST', url: '/addressbooks', headers: { 'content-type': 'application/json' }, payload: '[]' })
      assert.equal(create.statusCode, 422)
      assert.deepEqual(create.json(), { error_code: 422, message: 'Argument bookName missing' })
    })

    it('treats Content-Type: application/json with an empty body as no body (Python and PHP 2.x GETs)', async () => {
      const res = await t.call(account, { method: 'GET', url: '/addressbooks', headers: { 'content-type': 'application/json' }, payload: '' })
      assert.equal(res.statusCode, 200)
    })

    it('collapses repeated slashes and ignores a trailing slash, without redirecting', async () => {
      const res = await t.call(account, { method: 'GET', url: '//addressbooks//1/' })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json<Book[]>()[0]?.id, 1)
      const variables = await t.call(account, { method: 'GET', url: '/addressbooks/1//variables/' })
      assert.equal(variables.statusCode, 200)
    })

    it('coerces form and query strings to the field type: limit=1 is the integer 1', async () => {
      const res = await t.call(account, { method: 'GET', url: '/addressbooks?limit=1&offset=0' })
      assert.deepEqual(names(res), ['one'])
      const form = await t.call(account, {
        method: 'POST',
        url: '/addressbooks',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'bookName=12345',
      })
      assert.equal(form.statusCode, 200, 'a numeric form value is still a valid string name')
    })

    it('takes limit 0 as the default page and a limit above the maximum as the maximum (100)', async () => {
      const zero = await t.call(account, { method: 'GET', url: '/addressbooks', payload: { limit: 0 } })
      const all = names(zero).length
      assert.ok(all >= 3)
      const huge = await t.call(account, { method: 'GET', url: '/addressbooks?limit=100000' })
      assert.equal(names(huge).length, all)
    })

    it('treats empty and null optional fields as not given', async () => {
      const empty = await t.call(account, { method: 'GET', url: '/addressbooks?limit=&offset=' })
      assert.equal(empty.statusCode, 200)
      const nulls = await t.call(account, { method: 'GET', url: '/addressbooks', payload: { limit: null, offset: null } })
      assert.deepEqual(names(nulls), names(empty))
    })

    it('accepts DELETE with a body of {}, [] or nothing', async () => {
      for (const payload of ['{}', '[]', undefined]) {
        const created = await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: `to delete ${payload}` } })
        const res = await t.call(account, {
          method: 'DELETE',
          url: `/addressbooks/${created.json<{ id: number }>().id}`,
          ...(payload === undefined ? {} : { headers: { 'content-type': 'application/json' }, payload }),
        })
        assert.equal(res.statusCode, 200)
        assert.deepEqual(res.json(), { result: true })
      }
    })

    it('accepts a JSON body ending with a newline (Go) and bodies without a Content-Type', async () => {
      const go = await t.call(account, { method: 'POST', url: '/addressbooks', headers: { 'content-type': 'application/json' }, payload: '{"bookName":"go list"}\n' })
      assert.equal(go.statusCode, 200)
      const bare = await t.app.inject({ method: 'GET', url: '/addressbooks/1', headers: auth() })
      assert.equal(bare.statusCode, 200)
      const untyped = await t.app.inject({ method: 'POST', url: '/addressbooks', headers: { ...auth(), 'content-type': '' }, payload: '{"bookName":"untyped"}' })
      assert.equal(untyped.statusCode, 200)
    })

    it('answers success with exactly 200 and a JSON body, also for creation and deletion', async () => {
      const created = await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'status check' } })
      assert.equal(created.statusCode, 200)
      assert.match(String(created.headers['content-type']), /^application\/json/)
      assert.equal(typeof created.json<{ id: unknown }>().id, 'number')
    })

    it('writes non-ASCII characters as \\u escapes (the npm SDK splits UTF-8 across reads)', async () => {
      const created = await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Клиенты 🎉' } })
      const res = await t.call(account, { method: 'GET', url: `/addressbooks/${created.json<{ id: number }>().id}` })
      assert.ok(/^[\x00-\x7f]*$/.test(res.body), 'the body is pure ASCII')
      assert.ok(res.body.includes('\\u041a\\u043b'))
      assert.equal(res.json<Book[]>()[0]?.name, 'Клиенты 🎉')
    })

    it('answers every error as a JSON object {error_code, message} with a 4xx', async () => {
      const cases = [
        await t.call(account, { method: 'GET', url: '/addressbooks/999999' }),
        await t.call(account, { method: 'GET', url: '/no/such/route' }),
        await t.call(account, { method: 'PATCH', url: '/addressbooks/1' }),
        await t.call(account, { method: 'POST', url: '/addressbooks', headers: { 'content-type': 'application/json' }, payload: '{"bookName":' }),
        await t.app.inject({ method: 'GET', url: '/addressbooks' }),
      ]
      assert.deepEqual(cases.map((r) => r.statusCode), [404, 404, 405, 400, 401])
      for (const res of cases) {
        const body = res.json<{ error_code: unknown; message: unknown }>()
        assert.equal(typeof body.error_code, 'number')
        assert.equal(typeof body.message, 'string')
      }
      assert.deepEqual(cases[0]?.json(), { error_code: 213, message: 'Book not found' })
    })
  })
}
