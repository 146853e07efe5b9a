// The Viber phone blacklist (API.md 2.10, 4.10 `/v2/viber-service/phone-exception`): counters and entries in
// the published shapes with JSON integers, numbers from JSON, form, JSON-string and query-JSON requests
// (COMPAT.md "Requests the server must accept" 1–8, 13), paging with a total, an invalid number refusing the
// whole call, one account never seeing or changing another's, and the helpers Viber campaigns skip numbers with.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { InjectOptions } from 'fastify'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const PATH = '/v2/viber-service/phone-exception'

interface Entry {
  id: number
  user_id: number
  phone: number
  description: string
  add_date: string
}

for (const dialect of DIALECTS) {
  describe(`the Viber phone blacklist on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    let other: TestAccount
    const send = async (options: InjectOptions, who = account) => {
      const res = await t.call(who, options)
      return { status: res.statusCode, body: res.json<Record<string, unknown>>(), raw: res.body }
    }
    const page = async (query = '', who = account) => {
      const res = await send({ method: 'GET', url: `${PATH}${query}` }, who)
      assert.equal(res.status, 200, res.raw)
      return res.body as { data: { list: Entry[]; total: number } }
    }
    const phonesOf = (p: { data: { list: Entry[] } }) => p.data.list.map((e) => e.phone)
    const wireNow = () => new Date(t.clock.now).toISOString().slice(0, 19).replace('T', ' ')

    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account('owner')
      other = await t.account('other')
    })
    after(() => t.close())

    it('adds numbers with and without a description, counting added and existing; lists them newest first with JSON integers', async () => {
      assert.deepEqual(await page(), { data: { list: [], total: 0 } })
      const added = await send({ method: 'POST', url: PATH, payload: { phones: ['+380631234567', 380631234568], description: 'asked to stop' } })
      assert.deepEqual([added.status, added.body], [200, { result: true, counters: { added: 2, exists: 0 } }])
      const firstAt = wireNow()
      t.clock.advance(1000)
      // A JSON string of the list (Python, npm), one number known, one repeated, no description.
      const again = await send({ method: 'POST', url: PATH, payload: { phones: JSON.stringify(['380631234567', '447911123456', '+44 7911 123456']) } })
      assert.deepEqual(again.body, { result: true, counters: { added: 1, exists: 2 } })

      const listed = await page()
      const [uk, second, first] = listed.data.list
      assert.deepEqual(listed, {
        data: {
          list: [
            { id: uk!.id, user_id: account.id, phone: 447911123456, description: '', add_date: wireNow() },
            { id: second!.id, user_id: account.id, phone: 380631234568, description: 'asked to stop', add_date: firstAt },
            { id: first!.id, user_id: account.id, phone: 380631234567, description: 'asked to stop', add_date: firstAt },
          ],
          total: 3,
        },
      })
      assert.ok(second!.id > first!.id && uk!.id > second!.id)
      for (const entry of listed.data.list) for (const key of ['id', 'user_id', 'phone'] as const) assert.ok(Number.isInteger(entry[key]), `${key} is a JSON integer`)
      const raw = (await send({ method: 'GET', url: PATH })).raw
      assert.match(raw, /"phone":447911123456,/, 'the phone is a JSON number, not a string')
      const stored = await t.deps.db.selectFrom('viber_blacklist').select('phone').where('account_id', '=', account.id).orderBy('phone').execute()
      assert.deepEqual(stored.map((r) => r.phone), ['380631234567', '380631234568', '447911123456'], 'stored as E.164 digits')
    })

    it('reads phones from a form with PHP brackets and a body of a PHP serialize() string', async () => {
      const form = await send({ method: 'POST', url: PATH, headers: FORM, payload: 'phones[0]=380501234567&phones[1]=%2B380501234568&description=form' })
      assert.deepEqual(form.body, { result: true, counters: { added: 2, exists: 0 } })
      const serialized = await send({ method: 'POST', url: PATH, headers: FORM, payload: `phones=${encodeURIComponent('a:1:{i:0;s:12:"380501234569";}')}` })
      assert.deepEqual(serialized.body, { result: true, counters: { added: 1, exists: 0 } })
      assert.equal((await page()).data.total, 6)
    })

    it('pages with limit and offset from the query, a JSON query (Python), a GET body (npm) and a form; 0 means the default page', async () => {
      const all = phonesOf(await page())
      assert.equal(all.length, 6)
      const variants = [
        '?limit=2&offset=1',
        `?${encodeURIComponent(JSON.stringify({ limit: 2, offset: 1 }))}`,
      ]
      for (const query of variants) {
        const p = await page(query)
        assert.deepEqual([phonesOf(p), p.data.total], [all.slice(1, 3), 6], query)
      }
      const body = await send({ method: 'GET', url: PATH, payload: { limit: 2, offset: 1 } })
      assert.deepEqual(phonesOf(body.body as { data: { list: Entry[] } }), all.slice(1, 3), 'a JSON body on GET')
      const form = await send({ method: 'GET', url: PATH, headers: FORM, payload: 'limit=2&offset=4' })
      assert.deepEqual(phonesOf(form.body as { data: { list: Entry[] } }), all.slice(4, 6), 'a form body on GET')
      assert.deepEqual(phonesOf(await page('?limit=0')), all)
      assert.deepEqual(phonesOf(await page(`?${encodeURIComponent('{}')}`)), all)
      assert.deepEqual(await page('?offset=10'), { data: { list: [], total: 6 } })
      assert.equal((await send({ method: 'GET', url: `${PATH}?limit=abc` })).status, 422)
      assert.equal((await send({ method: 'GET', url: `${PATH}?offset=-1` })).status, 422)
    })

    it('answers at most 100 entries by default and 1000 at most', async () => {
      const phones = Array.from({ length: 1100 }, (_, i) => `3806700${String(i).padStart(5, '0')}`)
      const added = await send({ method: 'POST', url: PATH, payload: { phones } }, other)
      assert.deepEqual(added.body, { result: true, counters: { added: 1100, exists: 0 } })
      const first = await page('', other)
      assert.deepEqual([first.data.list.length, first.data.total], [100, 1100])
      assert.equal((await page('?limit=5000', other)).data.list.length, 1000)
      const removed = await send({ method: 'DELETE', url: PATH, payload: { phones } }, other)
      assert.deepEqual(removed.body, { result: true, deleted: 1100 })
    })

    it('refuses the whole call when one number is not valid, naming it; a missing, empty or too long list, and a NUL in the description', async () => {
      const before = await page()
      const invalid = await send({ method: 'POST', url: PATH, payload: { phones: ['380631234599', 'nope', '12'] } })
      assert.deepEqual([invalid.status, invalid.body], [422, { error_code: 422, message: 'Argument phones: "nope" is not a valid international phone number' }])
      const tooMany = await send({ method: 'POST', url: PATH, payload: { phones: Array.from({ length: 10_001 }, (_, i) => 380631000000 + i) } })
      assert.deepEqual([tooMany.status, tooMany.body.message], [422, 'Argument phones may hold at most 10000 numbers'])
      for (const payload of [{}, { phones: [] }, { phones: ['380501234599'], description: 'a\u0000b' }, { phones: [{ a: 1 }] }]) {
        const res = await send({ method: 'POST', url: PATH, payload })
        assert.equal(res.status, 422, JSON.stringify(payload))
        assert.equal(typeof res.body.message, 'string')
        assert.equal(typeof res.body.error_code, 'number')
      }
      assert.equal((await send({ method: 'DELETE', url: PATH, payload: {} })).status, 422)
      assert.deepEqual(await page(), before, 'nothing was stored')
    })

    it('removes numbers from a JSON body, a form and a query of JSON, counting those that were blacklisted', async () => {
      const json = await send({ method: 'DELETE', url: PATH, payload: { phones: [380501234567, '380631234599', 'not a number'] } })
      assert.deepEqual([json.status, json.body], [200, { result: true, deleted: 1 }])
      const form = await send({ method: 'DELETE', url: PATH, headers: FORM, payload: 'phones[0]=%2B380501234568' })
      assert.deepEqual(form.body, { result: true, deleted: 1 })
      const query = await send({ method: 'DELETE', url: `${PATH}?${encodeURIComponent(JSON.stringify({ phones: ['380501234569'] }))}` })
      assert.deepEqual(query.body, { result: true, deleted: 1 })
      assert.deepEqual(phonesOf(await page()), [447911123456, 380631234568, 380631234567])
    })

    it("keeps each account's blacklist its own: another account neither reads nor removes it, and may list the same number", async () => {
      const before = await page()
      assert.deepEqual(await page('', other), { data: { list: [], total: 0 } })
      const removed = await send({ method: 'DELETE', url: PATH, payload: { phones: ['380631234567', '447911123456'] } }, other)
      assert.deepEqual(removed.body, { result: true, deleted: 0 })
      const added = await send({ method: 'POST', url: PATH, payload: { phones: ['380631234567'], description: 'by other' } }, other)
      assert.deepEqual(added.body, { result: true, counters: { added: 1, exists: 0 } }, "the same number is new on the other account's list")
      assert.deepEqual((await page('', other)).data.list.map((e) => [e.user_id, e.phone, e.description]), [[other.id, 380631234567, 'by other']])
      assert.deepEqual(await page(), before)
    })

    it('documents the three operations with their shapes in the OpenAPI document', async () => {
      const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }> }>> }>()
      const ok = (method: string) => document.paths[PATH]?.[method]?.responses['200']?.content['application/json']?.schema as { properties: Record<string, { properties: Record<string, { type?: string; items?: { properties: Record<string, { type: string }> } }> }> }
      const list = ok('get').properties.data!.properties
      assert.equal(list.total?.type, 'integer')
      assert.deepEqual(Object.fromEntries(Object.entries(list.list!.items!.properties).map(([k, v]) => [k, v.type])), { id: 'integer', user_id: 'integer', phone: 'integer', description: 'string', add_date: 'string' })
      assert.ok(ok('post').properties.counters)
      assert.ok(ok('delete').properties.deleted)
    })
  })
}
