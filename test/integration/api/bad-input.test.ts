// Malformed requests to the mailing-list routes: each one gets its 4xx with a JSON `{error_code, message}`
// body (never a 500, never HTML) and changes nothing in the database.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Agent, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { snapshotDatabase, type TestAccount } from '../../helpers/factories.js'

const JSON_TYPE = { 'content-type': 'application/json' }
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' }
const LIST_NAME = 'The one list'

/** Sends one request over a real connection; resolves with its status and the milliseconds to its last byte. */
function timedRequest(agent: Agent, url: string, options: { method: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method, headers: options.headers, agent }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

interface Row {
  /** What is wrong with the request, as the end of a sentence. */
  what: string
  request: (bookId: number) => InjectOptions
  /** The expected status, or the statuses that are each right for it. */
  status: number | number[]
  /** The exact body, or a pattern the message must match. */
  body?: { error_code: number; message: string }
  message?: RegExp
  check?: (res: LightMyRequestResponse) => void
}

/** JSON text with invalid UTF-8 inside a string: 0xff never occurs in UTF-8, 0xc3 0x28 is a broken pair. */
const badUtf8Json = Buffer.concat([Buffer.from('{"bookName":"caf'), Buffer.from([0xff, 0xc3, 0x28]), Buffer.from('"}')])
const badUtf8Form = Buffer.concat([Buffer.from('bookName=caf'), Buffer.from([0xc3, 0x28, 0xfe])])

// Inputs whose parsing once cost seconds or the stack (PHP bracket indexes, nesting, serialize() counts).
/** 1,000 sparse high indexes: 13 KB that kept qs busy for 2.5 s. */
const sparseIndexQuery = Array.from({ length: 1000 }, (_, i) => `a${i}[99999]=`).join('&')
/** 24,000 of them: a 289 KB form body that took 36 s. */
const sparseIndexForm = Array.from({ length: 24_000 }, (_, i) => `a${i}[99999]=`).join('&')
const MB = 1024 * 1024
const deepJsonArray = '['.repeat(MB) + ']'.repeat(MB)
const deepJsonObject = '{"a":'.repeat(MB / 5) + '1' + '}'.repeat(MB / 5)
const deepSerialized = 'a:1:{i:0;'.repeat(100_000) + 'N;' + '}'.repeat(100_000)
/** One contact whose variable is an integer only a BigInt holds. */
const serializedBigInteger = 'a:1:{i:0;a:2:{s:5:"email";s:11:"big@ex.com ";s:9:"variables";a:1:{s:3:"age";i:99999999999999999999;}}}'

const ROWS: Row[] = [
  // Wrong types: a number is never turned into a string name.
  { what: 'bookName as a number', request: () => ({ method: 'POST', url: '/addressbooks', payload: { bookName: 5 } }), status: 422, body: { error_code: 422, message: 'Argument bookName must be string' } },
  { what: 'bookName as an array', request: () => ({ method: 'POST', url: '/addressbooks', payload: { bookName: ['a', 'b'] } }), status: 422, message: /bookName/ },
  { what: 'bookName as an object', request: () => ({ method: 'POST', url: '/addressbooks', payload: { bookName: { first: 'a' } } }), status: 422, message: /bookName/ },
  { what: 'bookName as a boolean', request: () => ({ method: 'POST', url: '/addressbooks', payload: { bookName: true } }), status: 422, message: /bookName/ },
  { what: 'bookName as a form array (bookName[]=a)', request: () => ({ method: 'POST', url: '/addressbooks', headers: FORM_TYPE, payload: 'bookName%5B%5D=a' }), status: 422, message: /bookName/ },
  { what: 'name as an object on PUT', request: (id) => ({ method: 'PUT', url: `/addressbooks/${id}`, payload: { name: { x: 1 } } }), status: 422, message: /name/ },
  { what: 'limit "abc"', request: () => ({ method: 'GET', url: '/addressbooks?limit=abc' }), status: 422, body: { error_code: 422, message: 'Argument limit must be integer' } },
  { what: 'offset 1.5', request: () => ({ method: 'GET', url: '/addressbooks?offset=1.5' }), status: 422, message: /offset/ },
  { what: 'limit as a JSON boolean in a GET body', request: () => ({ method: 'GET', url: '/addressbooks', payload: { limit: true } }), status: 422, message: /limit/ },
  { what: 'active "maybe" on /emails/total', request: (id) => ({ method: 'GET', url: `/addressbooks/${id}/emails/total?active=maybe` }), status: 422, message: /active/ },
  { what: 'a non-numeric id', request: () => ({ method: 'GET', url: '/addressbooks/abc' }), status: 422, message: /id/ },
  // Missing fields.
  { what: 'no bookName', request: () => ({ method: 'POST', url: '/addressbooks', payload: {} }), status: 422, body: { error_code: 422, message: 'Argument bookName missing' } },
  { what: 'an empty bookName', request: () => ({ method: 'POST', url: '/addressbooks', payload: { bookName: '' } }), status: 422, body: { error_code: 422, message: 'Argument bookName missing' } },
  { what: 'bookName null', request: () => ({ method: 'POST', url: '/addressbooks', payload: { bookName: null } }), status: 422, body: { error_code: 422, message: 'Argument bookName missing' } },
  { what: 'no name on PUT', request: (id) => ({ method: 'PUT', url: `/addressbooks/${id}`, payload: {} }), status: 422, body: { error_code: 422, message: 'Argument name missing' } },
  // Huge, negative and zero numbers.
  { what: 'id 99999999999999999999', request: () => ({ method: 'GET', url: '/addressbooks/99999999999999999999' }), status: 422, message: /id/ },
  { what: 'limit 1e30 in a JSON body', request: () => ({ method: 'GET', url: '/addressbooks', payload: { limit: 1e30 } }), status: 422, message: /limit/ },
  { what: 'limit 1e30 in the query string', request: () => ({ method: 'GET', url: '/addressbooks?limit=1e30' }), status: 422, message: /limit/ },
  { what: 'offset 1e300', request: () => ({ method: 'GET', url: '/addressbooks', payload: { offset: 1e300 } }), status: 422, message: /offset/ },
  { what: 'a negative limit', request: () => ({ method: 'GET', url: '/addressbooks?limit=-1' }), status: 422, message: /limit/ },
  { what: 'a negative offset', request: () => ({ method: 'GET', url: '/addressbooks', payload: { offset: -5 } }), status: 422, message: /offset/ },
  { what: 'a negative limit on the campaigns of a list', request: (id) => ({ method: 'GET', url: `/addressbooks/${id}/campaigns?limit=-1` }), status: 422, message: /limit/ },
  { what: 'id 0', request: () => ({ method: 'GET', url: '/addressbooks/0' }), status: 422, message: /id/ },
  { what: 'id -1 on DELETE', request: () => ({ method: 'DELETE', url: '/addressbooks/-1' }), status: 422, message: /id/ },
  { what: 'an id no list has', request: () => ({ method: 'DELETE', url: '/addressbooks/987654' }), status: 404, body: { error_code: 213, message: 'Book not found' } },
  // Bodies that cannot be read.
  {
    what: 'a 10 MB JSON body',
    request: () => ({ method: 'POST', url: '/addressbooks', headers: JSON_TYPE, payload: JSON.stringify({ bookName: 'big', padding: 'x'.repeat(10 * 1024 * 1024) }) }),
    status: 413,
  },
  { what: 'invalid UTF-8 bytes in a JSON body', request: () => ({ method: 'POST', url: '/addressbooks', headers: JSON_TYPE, payload: badUtf8Json }), status: 400, message: /UTF-8/ },
  { what: 'invalid UTF-8 bytes in a form body', request: () => ({ method: 'POST', url: '/addressbooks', headers: FORM_TYPE, payload: badUtf8Form }), status: 400, message: /UTF-8/ },
  { what: 'malformed JSON', request: () => ({ method: 'POST', url: '/addressbooks', headers: JSON_TYPE, payload: '{"bookName": "x",' }), status: 400, message: /JSON/ },
  { what: 'a JSON string as the whole body', request: () => ({ method: 'POST', url: '/addressbooks', headers: JSON_TYPE, payload: '"just a name"' }), status: 422, message: /body/ },
  { what: 'a JSON number as the whole body', request: () => ({ method: 'POST', url: '/addressbooks', headers: JSON_TYPE, payload: '42' }), status: 422, message: /body/ },
  { what: 'JSON null as the whole body', request: () => ({ method: 'POST', url: '/addressbooks', headers: JSON_TYPE, payload: 'null' }), status: 422, body: { error_code: 422, message: 'Argument bookName missing' } },
  { what: 'a JSON array of numbers as the whole body', request: () => ({ method: 'POST', url: '/addressbooks', headers: JSON_TYPE, payload: '[1,2]' }), status: 422, message: /body/ },
  { what: 'bookName hidden in __proto__', request: () => ({ method: 'POST', url: '/addressbooks', headers: JSON_TYPE, payload: '{"__proto__":{"bookName":"sneaky"}}' }), status: 422, body: { error_code: 422, message: 'Argument bookName missing' } },
  // Inputs that cost the parser work out of proportion to their size.
  { what: 'a 13 KB query string of 1,000 sparse high indexes (a0[99999]=&…)', request: () => ({ method: 'POST', url: `/addressbooks?${sparseIndexQuery}`, payload: {} }), status: 422, message: /bookName/ },
  { what: 'a 289 KB form of 24,000 sparse high indexes', request: () => ({ method: 'POST', url: '/addressbooks', headers: FORM_TYPE, payload: sparseIndexForm }), status: 413, message: /parameters/ },
  { what: 'a query string of 5,001 parameters', request: () => ({ method: 'GET', url: `/addressbooks?${'a&'.repeat(5001)}` }), status: 414, message: /parameters/ },
  { what: 'a 2 MB JSON body of nested arrays', request: () => ({ method: 'POST', url: '/addressbooks', headers: JSON_TYPE, payload: deepJsonArray }), status: 400, message: /deeper/ },
  { what: 'a 1 MB JSON body of nested arrays never closed', request: () => ({ method: 'POST', url: '/addressbooks', headers: JSON_TYPE, payload: '['.repeat(MB) }), status: 400 },
  { what: 'a 1 MB JSON body of nested objects', request: () => ({ method: 'POST', url: '/addressbooks', headers: JSON_TYPE, payload: deepJsonObject }), status: 400, message: /deeper/ },
  { what: 'a JSON body nested 33 levels', request: () => ({ method: 'POST', url: '/addressbooks', headers: JSON_TYPE, payload: `{"bookName":${'['.repeat(32)}${']'.repeat(32)}}` }), status: 400, message: /deeper/ },
  { what: 'a JSON query string nested 1,000 levels', request: () => ({ method: 'GET', url: `/addressbooks?${encodeURIComponent(`{"limit":${'['.repeat(1000)}${']'.repeat(1000)}}`)}` }), status: 400 },
  { what: 'emails as a JSON string nested 1 MB deep', request: (id) => ({ method: 'POST', url: `/addressbooks/${id}/emails`, payload: { emails: deepJsonArray } }), status: 422, message: /emails/ },
  { what: 'emails as a serialize() string nested 100,000 levels', request: (id) => ({ method: 'DELETE', url: `/addressbooks/${id}/emails`, payload: { emails: deepSerialized } }), status: 422, message: /emails/ },
  { what: 'emails as a serialize() string declaring 100,000,000 entries', request: (id) => ({ method: 'DELETE', url: `/addressbooks/${id}/emails`, payload: { emails: 'a:100000000:{i:0;s:7:"a@b.com";}' } }), status: 422, message: /emails/ },
  { what: 'emails as a serialize() string declaring a 1 GB address', request: (id) => ({ method: 'DELETE', url: `/addressbooks/${id}/emails`, payload: { emails: 'a:1:{i:0;s:1000000000:"a@b.com";}' } }), status: 422, message: /emails/ },
  { what: 'a contact variable as a serialize() integer only a BigInt holds', request: (id) => ({ method: 'POST', url: `/addressbooks/${id}/emails`, headers: FORM_TYPE, payload: `emails=${encodeURIComponent(serializedBigInteger)}` }), status: 422, message: /emails/ },
  // Names no list can have.
  { what: 'bookName with a NUL byte', request: () => ({ method: 'POST', url: '/addressbooks', payload: { bookName: 'nul\u0000name' } }), status: 422, message: /bookName/ },
  { what: 'bookName with a bell and an escape character', request: () => ({ method: 'POST', url: '/addressbooks', payload: { bookName: 'ring\u0007\u001b[31m' } }), status: 422, message: /bookName/ },
  { what: 'a new name with a line break on PUT', request: (id) => ({ method: 'PUT', url: `/addressbooks/${id}`, payload: { name: 'two\nlines' } }), status: 422, message: /name/ },
  { what: 'bookName with DEL (0x7f)', request: () => ({ method: 'POST', url: '/addressbooks', headers: FORM_TYPE, payload: 'bookName=del%7F' }), status: 422, message: /bookName/ },
  { what: 'a 300-character bookName', request: () => ({ method: 'POST', url: '/addressbooks', payload: { bookName: 'n'.repeat(300) } }), status: 422, message: /bookName.*255/ },
  // SQL where numbers belong.
  { what: 'SQL in the id (/addressbooks/1%20OR%201=1)', request: () => ({ method: 'GET', url: '/addressbooks/1%20OR%201=1' }), status: 422, message: /id/ },
  { what: 'SQL after the limit (limit=1;DROP TABLE address_books)', request: () => ({ method: 'GET', url: '/addressbooks?limit=1;DROP%20TABLE%20address_books' }), status: 422, message: /limit/ },
  { what: 'SQL in the id on PUT', request: () => ({ method: 'PUT', url: `/addressbooks/1;DELETE%20FROM%20address_books`, payload: { name: 'x' } }), status: 422, message: /id/ },
  // Routes and query strings.
  { what: 'an unknown route', request: () => ({ method: 'GET', url: '/addressbookz' }), status: 404, message: /not found/i },
  {
    what: 'a method the path does not have (PATCH)',
    request: (id) => ({ method: 'PATCH', url: `/addressbooks/${id}`, payload: { name: 'x' } }),
    status: 405,
    check: (res) => assert.deepEqual(String(res.headers.allow).split(/,\s*/).sort(), ['DELETE', 'GET', 'PUT']),
  },
  { what: 'a query string that looks like JSON but is broken (?{"limit":)', request: () => ({ method: 'GET', url: '/addressbooks?{"limit":' }), status: 400, message: /JSON/ },
  { what: 'a percent-encoded broken JSON query string', request: () => ({ method: 'GET', url: `/addressbooks?${encodeURIComponent('{"limit": 1,')}` }), status: 400, message: /JSON/ },
  // The raw query is not valid percent-encoding either, so it cannot be decoded; it must not be read as a form.
  { what: 'a JSON query string with a stray % (?{"limit":5%})', request: () => ({ method: 'GET', url: '/addressbooks?{"limit":5%}' }), status: 400 },
  { what: 'broken percent-encoding in the path (/addressbooks/%zz)', request: () => ({ method: 'GET', url: '/addressbooks/%zz' }), status: 400 },
  // Longer than the router's maxParamLength (100): Fastify answers before routing.
  { what: 'an id of 120 digits', request: () => ({ method: 'GET', url: `/addressbooks/${'9'.repeat(120)}` }), status: [400, 414, 422] },
  // Rules of the data.
  { what: 'a name already in use', request: () => ({ method: 'POST', url: '/addressbooks', payload: { bookName: LIST_NAME } }), status: 422, body: { error_code: 203, message: 'Name already in use' } },
  { what: 'a name already in use, apart from surrounding spaces', request: () => ({ method: 'POST', url: '/addressbooks', payload: { bookName: `  ${LIST_NAME} ` } }), status: 422, body: { error_code: 203, message: 'Name already in use' } },
  {
    what: 'a bearer token nobody issued',
    request: () => ({ method: 'GET', url: '/addressbooks', headers: { authorization: 'Bearer not-a-token' } }),
    status: 401,
    check: (res) => assert.doesNotMatch(res.body, /invalid_client/),
  },
]

for (const dialect of DIALECTS) {
  describe(`bad input to the mailing-list routes on ${dialect}`, () => {
    let testApp: TestApp
    let account: TestAccount

    before(async () => {
      testApp = await startTestApp(dialect)
      account = await testApp.account()
    })
    after(() => testApp.close())

    describe('malformed requests', () => {
      let bookId: number
      let snapshot: Record<string, unknown[]>

      before(async () => {
        const created = await testApp.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: LIST_NAME } })
        assert.equal(created.statusCode, 200)
        bookId = created.json<{ id: number }>().id
        snapshot = await snapshotDatabase(testApp.deps)
      })

      it(`has a table of at least 32 rows (${ROWS.length})`, () => {
        assert.ok(ROWS.length >= 32)
      })

      for (const row of ROWS) {
        it(`answers ${[row.status].flat().join(' or ')} with a JSON error body to ${row.what}`, async () => {
          const res = await testApp.call(account, row.request(bookId))
          const statuses = [row.status].flat()
          assert.ok(statuses.includes(res.statusCode), `status ${res.statusCode}, expected ${statuses.join(' or ')}; body: ${res.body.slice(0, 300)}`)
          assert.match(String(res.headers['content-type']), /^application\/json/)
          const body = res.json<unknown>()
          assert.ok(typeof body === 'object' && body !== null && !Array.isArray(body), 'the body is a JSON object')
          const { error_code: code, message } = body as Record<string, unknown>
          assert.ok(Number.isInteger(code), `error_code is an integer: ${JSON.stringify(code)}`)
          assert.ok(typeof message === 'string' && message.trim() !== '', `message is a non-empty string: ${JSON.stringify(message)}`)
          if (row.body) assert.deepEqual(body, row.body)
          if (row.message) assert.match(message, row.message)
          row.check?.(res)
        })
      }

      it('changed nothing in the database', async () => {
        assert.deepEqual(await snapshotDatabase(testApp.deps), snapshot)
      })
    })

    // On a listening server, since the point is what else the process can do meanwhile: the inputs that
    // blocked it for 2.5 s and 36 s before any login check are refused at once, and /healthz keeps answering.
    describe('sparse-index floods against a listening server', () => {
      let base: string
      const agent = new Agent({ keepAlive: true })

      before(async () => {
        await testApp.app.listen({ host: '127.0.0.1', port: 0 })
        base = `http://127.0.0.1:${(testApp.app.server.address() as AddressInfo).port}`
        // Warm up both paths, so the figures below are not those of the first call.
        await timedRequest(agent, `${base}/healthz`, { method: 'GET' })
        // An attacker sends these again and again: what counts is each one after the first (compiled) run.
        await timedRequest(agent, `${base}/oauth/access_token?${sparseIndexQuery}`, { method: 'POST' })
        await timedRequest(agent, `${base}/oauth/access_token`, { method: 'POST', headers: FORM_TYPE, body: sparseIndexForm })
      })
      after(() => agent.destroy())

      // The bounds are the regressions' scale (seconds), not a speed: on a busy 2-core machine a healthy server
      // answered /healthz in up to 93 ms here, and 50 ms bounds failed runs that had nothing wrong.
      it('answers the 13 KB query string and the 289 KB form on the token call with a 4xx, and /healthz meanwhile, each well under a second', async () => {
        const healthz: number[] = []
        let flooding = true
        const polling = (async () => {
          const pollAgent = new Agent({ keepAlive: true })
          while (flooding) healthz.push((await timedRequest(pollAgent, `${base}/healthz`, { method: 'GET' })).ms)
          pollAgent.destroy()
        })()
        const query = await timedRequest(agent, `${base}/oauth/access_token?${sparseIndexQuery}`, { method: 'POST' })
        const form = await timedRequest(agent, `${base}/oauth/access_token`, { method: 'POST', headers: FORM_TYPE, body: sparseIndexForm })
        flooding = false
        await polling
        for (const [what, answer] of [['query string', query], ['form body', form]] as const) {
          assert.ok(answer.status >= 400 && answer.status < 500, `${what}: status ${answer.status}`)
          assert.ok(answer.ms < 500, `${what}: answered in ${answer.ms.toFixed(0)} ms`)
        }
        assert.ok(healthz.length > 0)
        assert.ok(Math.max(...healthz) < 500, `/healthz took up to ${Math.max(...healthz).toFixed(0)} ms`)
      })

      it('answers a query string past the 16 KB header limit with 431 and the SendPulse error body', async () => {
        const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = httpRequest(`${base}/oauth/access_token?pad=${'a'.repeat(20_000)}`, { method: 'POST' }, (res) => {
            let body = ''
            res.on('data', (chunk: Buffer) => (body += chunk.toString()))
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
          })
          req.on('error', reject)
          req.end()
        })
        assert.equal(answer.status, 431)
        assert.deepEqual(JSON.parse(answer.body), { error_code: 431, message: 'Request Header Fields Too Large' })
      })
    })

    describe('names made only of spaces', () => {
      // The schema's minLength sees '   ', the service then trims it to '': an empty name must not be stored.
      it('refuses a bookName of spaces as missing and stores no list with an empty name', async () => {
        const res = await testApp.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: '   ' } })
        assert.equal(res.statusCode, 422, `body: ${res.body}`)
        assert.deepEqual(res.json(), { error_code: 422, message: 'Argument bookName missing' })
        const empty = await testApp.deps.db.selectFrom('address_books').select('id').where('name', '=', '').execute()
        assert.deepEqual(empty, [])
      })

      it('refuses a new name of spaces on PUT and keeps the old name', async () => {
        // A fresh account, so no list with an empty name from the test above gets in the way.
        const owner = await testApp.account()
        const created = await testApp.call(owner, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Keeps its name' } })
        const id = created.json<{ id: number }>().id
        const res = await testApp.call(owner, { method: 'PUT', url: `/addressbooks/${id}`, payload: { name: '    ' } })
        assert.equal(res.statusCode, 422, `body: ${res.body}`)
        assert.deepEqual(res.json(), { error_code: 422, message: 'Argument name missing' })
        const book = await testApp.call(owner, { method: 'GET', url: `/addressbooks/${id}` })
        assert.equal(book.json<{ name: string }[]>()[0]?.name, 'Keeps its name')
      })
    })

    // Names holding SQL or markup are valid strings: storing and returning them verbatim is right, since
    // every query is parameterised and every answer is JSON, so neither can act as code.
    describe('names that look like code', () => {
      for (const name of ["x'); DROP TABLE address_books; --", '<script>alert(1)</script>', 'Robert"); DELETE FROM contacts WHERE ("1"="1']) {
        it(`stores and returns ${JSON.stringify(name)} as ordinary text`, async () => {
          const created = await testApp.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: name } })
          assert.equal(created.statusCode, 200, created.body)
          const id = created.json<{ id: number }>().id
          const one = await testApp.call(account, { method: 'GET', url: `/addressbooks/${id}` })
          assert.equal(one.statusCode, 200)
          assert.match(String(one.headers['content-type']), /^application\/json/)
          assert.equal(one.json<{ name: string }[]>()[0]?.name, name)
          const list = await testApp.call(account, { method: 'GET', url: '/addressbooks' })
          assert.ok(list.json<{ id: number; name: string }[]>().some((b) => b.id === id && b.name === name))
          const rows = await testApp.deps.db.selectFrom('address_books').select(['id', 'name']).where('id', '=', id).execute()
          assert.deepEqual(rows.map((r) => ({ id: Number(r.id), name: r.name })), [{ id, name }])
        })
      }

      it('leaves every table in place', async () => {
        const snapshot = await snapshotDatabase(testApp.deps)
        for (const table of ['access_tokens', 'accounts', 'address_book_variables', 'address_books', 'api_keys', 'contacts', 'ledger_entries']) {
          assert.ok(Array.isArray(snapshot[table]), `table ${table} is still there`)
        }
        assert.ok((snapshot.address_books ?? []).length >= 4, 'the lists made above are all there')
        const list = await testApp.call(account, { method: 'GET', url: '/addressbooks' })
        assert.equal(list.statusCode, 200)
      })
    })
  })
}
