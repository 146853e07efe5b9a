// POST /addressbooks/{id}/emails with bodies of 64 KiB or more, which a worker thread reads and prepares
// (src/api/routes/add-contacts-body.ts): the same answers and the same stored rows as the main thread's way,
// values with tabs, line breaks, backslashes and any Unicode stored exactly (PostgreSQL COPYs them), bad
// bodies refused with the same 4xx and nothing written, two imports into one list at once both complete.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { snapshotDatabase, type TestAccount } from '../../helpers/factories.js'

type Listed = { email: string; status: number; variables: Record<string, unknown> }

/** Values COPY text must escape, or could mistake for its own markers (`\N` is its NULL, `\.` its old end). */
const TRICKY = ['tab\there', 'line\nbreak', 'carriage\rreturn', 'back\\slash', '\\N', '\\.', 'quote " and \'', 'Ωμέγα – 漢字 🎉', 'a,b;c|d', '{"json": [1]}']

/** Enough contacts to pass 64 KiB: ~100 bytes each. */
const LARGE = 1000

function contacts(count: number, prefix: string) {
  return Array.from({ length: count }, (_, i) => ({
    email: `${prefix}${i}@example.com`,
    variables: { name: TRICKY[i % TRICKY.length]!, "ім'я": `№${i}`, age: 20 + (i % 50), signup: '2024-02-29' },
  }))
}

for (const dialect of DIALECTS) {
  describe(`adding contacts with large bodies on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    const newBook = async (bookName: string) => {
      const res = await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName } })
      assert.equal(res.statusCode, 200, res.body)
      return res.json<{ id: number }>().id
    }
    const add = (id: number, payload: unknown, headers: Record<string, string> = {}) =>
      t.call(account, { method: 'POST', url: `/addressbooks/${id}/emails`, headers: { 'content-type': 'application/json', ...headers }, payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload) })
    const listAll = async (id: number) => {
      const out: Listed[] = []
      for (let offset = 0; ; offset += 100) {
        const res = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/emails?limit=100&offset=${offset}` })
        assert.equal(res.statusCode, 200, res.body)
        const page = res.json<Listed[]>()
        out.push(...page.map((c) => ({ email: c.email, status: c.status, variables: c.variables })))
        if (page.length < 100) return out
      }
    }

    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account()
    })
    after(() => t.close())

    it('stores every value exactly, as the small-body way does', async () => {
      const sent = contacts(LARGE, 'exact')
      assert.ok(JSON.stringify({ emails: sent }).length > 64 * 1024)
      const [large, small] = [await newBook('Large'), await newBook('Small')]
      assert.deepEqual((await add(large, { emails: sent })).json(), { result: true })
      for (let i = 0; i < sent.length; i += 100) assert.deepEqual((await add(small, { emails: sent.slice(i, i + 100) })).json(), { result: true })
      const stored = await listAll(large)
      assert.deepEqual(stored, await listAll(small))
      assert.deepEqual(
        stored,
        sent.map((c) => ({ email: c.email, status: 1, variables: c.variables })),
      )
      const types = await t.call(account, { method: 'GET', url: `/addressbooks/${large}/variables` })
      const declared = new Map(types.json<{ name: string; type: string }[]>().map((v) => [v.name, v.type]))
      assert.deepEqual(['age', 'name', 'signup', "ім'я"].map((name) => declared.get(name)), ['number', 'string', 'date', 'string'])
    })

    it('reads a bare list, merges repeated addresses, and reports bad addresses as before', async () => {
      const id = await newBook('Bare')
      const sent: unknown[] = contacts(LARGE, 'bare')
      sent.push('not an address', { email: 'bare0@EXAMPLE.com', variables: { name: 'changed' } })
      const res = await add(id, sent)
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { result: true, invalid_emails: ['"not an address" is not a valid email address'] })
      const stored = await listAll(id)
      assert.equal(stored.length, LARGE)
      assert.equal(stored[0]!.variables.name, 'changed')
    })

    it('answers a contact that breaks its variable type with the same 422, writing nothing', async () => {
      const id = await newBook('Typed')
      assert.equal((await add(id, { emails: [{ email: 'first@example.com', variables: { age: 30 } }] })).statusCode, 200)
      const bad = contacts(LARGE, 'typed')
      bad[LARGE - 1]!.variables.age = 'old' as unknown as number
      const before = await snapshotDatabase(t.deps)
      const large = await add(id, { emails: bad })
      const small = await add(id, { emails: bad.slice(-3) })
      assert.equal(large.statusCode, 422, large.body)
      assert.deepEqual(large.json(), small.json())
      assert.match(large.json<{ message: string }>().message, /Variable "age" is of type number/)
      const shape = await add(id, { emails: [...bad.slice(0, LARGE - 1), { email: 'x@example.com', extra: 1 }] })
      assert.equal(shape.statusCode, 422, shape.body)
      assert.deepEqual(await snapshotDatabase(t.deps), before)
    })

    it('prepares the contacts again when the list gained a variable since its last import', async () => {
      const id = await newBook('Gained')
      assert.deepEqual((await add(id, { emails: contacts(LARGE, 'gained') })).json(), { result: true })
      // Declared by another route: the add route's last view of the list has no `score`.
      const set = await t.call(account, { method: 'POST', url: `/addressbooks/${id}/emails/variable`, payload: { email: 'gained0@example.com', variables: { score: 5 } } })
      assert.equal(set.statusCode, 200, set.body)
      const next = contacts(LARGE, 'later').map((c, i) => ({ ...c, variables: { ...c.variables, score: i === 0 ? 'high' : i } }))
      const res = await add(id, { emails: next })
      assert.equal(res.statusCode, 422, res.body)
      assert.match(res.json<{ message: string }>().message, /Variable "score" is of type number/)
    })

    it('refuses unreadable large bodies with the same 400 as small ones', async () => {
      const id = await newBook('Unreadable')
      const padding = 'x'.repeat(70 * 1024)
      const cases: [string, string | Buffer, RegExp][] = [
        ['not JSON', `{"emails": ["a@example.com"], "pad": "${padding}"`, /not valid JSON/],
        ['not UTF-8', Buffer.concat([Buffer.from(`{"emails": ["a@example.com"], "pad": "${padding}`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]), /UTF-8/],
        ['nested too deep', `{"emails": ${'['.repeat(40)}${']'.repeat(40)}, "pad": "${padding}"}`, /deeper/],
      ]
      for (const [what, body, message] of cases) {
        const res = await add(id, body)
        assert.equal(res.statusCode, 400, `${what}: ${res.body}`)
        assert.match(res.json<{ message: string }>().message, message, what)
      }
      assert.deepEqual(await listAll(id), [])
    })

    it("reads another account's list like a missing one: 400 for a body it cannot read, then 404", async () => {
      const id = await newBook('Not theirs')
      const other = await t.account('other')
      const post = (payload: string) => t.call(other, { method: 'POST', url: `/addressbooks/${id}/emails`, headers: { 'content-type': 'application/json' }, payload })
      const valid = JSON.stringify({ emails: contacts(LARGE, 'theirs') })
      assert.equal((await post(valid.slice(0, -1))).statusCode, 400)
      assert.equal((await post(valid)).statusCode, 404)
      assert.deepEqual(await listAll(id), [])
    })

    it('completes two imports into one list at once, counting every contact', async () => {
      const id = await newBook('Concurrent')
      // Half of each body repeats the other's addresses, in the opposite order.
      const a = contacts(LARGE, 'both')
      const b = [...contacts(LARGE / 2, 'both').reverse(), ...contacts(LARGE / 2, 'only-b')]
      const answers = await Promise.all([add(id, { emails: a }), add(id, { emails: b })])
      for (const res of answers) assert.deepEqual(res.json(), { result: true })
      const stored = await listAll(id)
      assert.equal(stored.length, LARGE + LARGE / 2)
      assert.equal(new Set(stored.map((c) => c.email)).size, stored.length)
      const counts = (await t.call(account, { method: 'GET', url: `/addressbooks/${id}` })).json<Record<string, number>[]>()[0]
      assert.equal(counts?.all_email_qty, LARGE + LARGE / 2)
    })
  })
}
