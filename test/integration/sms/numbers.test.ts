// The numbers of a mailing list (API.md 4.11 `/sms/numbers…`, `/addressbooks/{id}/phones/variable`) with the
// answer shapes and request variants of COMPAT.md "SMS and Viber" 1–13, and the list counts (API.md 2.1).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { InjectOptions } from 'fastify'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

for (const dialect of DIALECTS) {
  describe(`numbers of a mailing list on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    const newBook = async (bookName: string, who = account) => {
      const res = await t.call(who, { method: 'POST', url: '/addressbooks', payload: { bookName } })
      assert.equal(res.statusCode, 200, res.body)
      return res.json<{ id: number }>().id
    }
    const send = async (options: InjectOptions, who = account) => {
      const res = await t.call(who, options)
      return { status: res.statusCode, body: res.json<Record<string, unknown>>() }
    }
    const stored = async (bookId: number) => {
      const rows = await t.deps.db.selectFrom('list_phones').select(['phone', 'status', 'variables']).where('address_book_id', '=', bookId).orderBy('phone').execute()
      return rows.map((r) => ({ phone: r.phone, status: r.status, variables: JSON.parse(r.variables) as unknown }))
    }
    const info = async (bookId: number, phone: string, who = account) => send({ method: 'GET', url: `/sms/numbers/info/${bookId}/${phone}` }, who)
    const counts = async (bookId: number) => {
      const [one] = (await t.call(account, { method: 'GET', url: `/addressbooks/${bookId}` })).json<Record<string, unknown>[]>()
      const listed = (await t.call(account, { method: 'GET', url: '/addressbooks' })).json<Record<string, unknown>[]>().find((b) => b.id === bookId)
      return { active: one?.active_phones_quantity, excluded: one?.exc_phones_quantity, new: listed?.new_phones_quantity }
    }

    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account()
    })
    after(() => t.close())

    it('adds numbers given as strings and JSON numbers; invalid ones are exceptions, known ones exists; none invalid is stored', async () => {
      const id = await newBook('Adds')
      const first = await send({ method: 'POST', url: '/sms/numbers', payload: { addressBookId: id, phones: ['+380631234567', 380631234568, '12', 'abc', '380 63 123 4569'] } })
      assert.deepEqual(first, { status: 200, body: { result: true, counters: { added: 3, exceptions: 2, exists: 0 } } })
      const again = await send({ method: 'POST', url: '/sms/numbers', payload: { addressBookId: String(id), phones: ['380631234567', '447911123456', '447911123456'] } })
      assert.deepEqual(again.body, { result: true, counters: { added: 1, exceptions: 0, exists: 2 } }, 'a number repeated in the call counts as existing')
      assert.deepEqual(await stored(id), [
        { phone: '380631234567', status: 1, variables: {} },
        { phone: '380631234568', status: 1, variables: {} },
        { phone: '380631234569', status: 1, variables: {} },
        { phone: '447911123456', status: 1, variables: {} },
      ])
      assert.deepEqual(await counts(id), { active: 4, excluded: 0, new: 0 })
    })

    it('reads phones as a JSON string (npm, Python), a PHP bracket form and an index-keyed form', async () => {
      const id = await newBook('Variants')
      const json = await send({ method: 'POST', url: '/sms/numbers', payload: { addressBookId: id, phones: JSON.stringify(['380631234567', 380631234568]) } })
      assert.deepEqual(json.body, { result: true, counters: { added: 2, exceptions: 0, exists: 0 } })
      const php = await send({ method: 'POST', url: '/sms/numbers', headers: FORM, payload: `addressBookId=${id}&phones[0]=%2B380631234569&phones[1]=447911123456` })
      assert.deepEqual(php.body, { result: true, counters: { added: 2, exceptions: 0, exists: 0 } })
      const indexed = await send({ method: 'POST', url: '/sms/numbers', headers: FORM, payload: `addressBookId=${id}&phones%5B0%5D=380631234569` })
      assert.deepEqual(indexed.body, { result: true, counters: { added: 0, exceptions: 0, exists: 1 } })
      assert.equal((await stored(id)).length, 4)
    })

    it('adds numbers with variables nested [[{…}]] or [{…}], type optional, typed as the list declares them', async () => {
      const id = await newBook('With variables')
      const res = await send({
        method: 'POST',
        url: '/sms/numbers/variables',
        payload: {
          addressBookId: id,
          phones: {
            '380631234567': [[{ name: 'city', type: 'string', value: 'Kyiv' }, { name: 'visits', type: 'number', value: '7' }, { name: 'born', type: 'date', value: '2018-10-10 23:00:00' }]],
            '+380631234568': [{ name: 'city', value: 'Lviv' }, { name: 'visits', value: 3 }],
            '12': [[{ name: 'city', value: 'Nowhere' }]],
          },
        },
      })
      assert.deepEqual(res.body, { result: true, counters: { added: 2, exceptions: 1, exists: 0 } })
      assert.deepEqual(await stored(id), [
        { phone: '380631234567', status: 1, variables: { city: 'Kyiv', visits: 7, born: '2018-10-10' } },
        { phone: '380631234568', status: 1, variables: { city: 'Lviv', visits: 3 } },
      ])
      const declared = (await t.call(account, { method: 'GET', url: `/addressbooks/${id}/variables` })).json<{ name: string; type: string }[]>()
      assert.deepEqual(declared.slice(2), [
        { name: 'city', type: 'string' },
        { name: 'visits', type: 'number' },
        { name: 'born', type: 'date' },
      ])
      // An existing number gets the variables merged and counts as existing (npm sends phones as a JSON string).
      const merged = await send({ method: 'POST', url: '/sms/numbers/variables', payload: { addressBookId: id, phones: JSON.stringify({ '380631234568': [[{ name: 'born', value: '2001-02-03' }]] }) } })
      assert.deepEqual(merged.body, { result: true, counters: { added: 0, exceptions: 0, exists: 1 } })
      assert.deepEqual((await stored(id))[1]?.variables, { city: 'Lviv', visits: 3, born: '2001-02-03' })
    })

    it('reads variables from a PHP bracket form with index keys', async () => {
      const id = await newBook('PHP variables')
      const form = `addressBookId=${id}&phones[380631234567][0][0][name]=city&phones[380631234567][0][0][value]=Odesa&phones[380631234567][0][1][name]=n&phones[380631234567][0][1][type]=number&phones[380631234567][0][1][value]=5`
      const res = await send({ method: 'POST', url: '/sms/numbers/variables', headers: FORM, payload: form })
      assert.deepEqual(res.body, { result: true, counters: { added: 1, exceptions: 0, exists: 0 } })
      assert.deepEqual((await stored(id))[0]?.variables, { city: 'Odesa', n: 5 })
    })

    it('refuses a value that breaks its declared type, an unknown type or a bad name with a 422, storing nothing', async () => {
      const id = await newBook('Refusals')
      await send({ method: 'POST', url: '/sms/numbers/variables', payload: { addressBookId: id, phones: { '380631234567': [[{ name: 'visits', type: 'number', value: 1 }]] } } })
      const before = await stored(id)
      const cases: [unknown, RegExp][] = [
        [{ '380631234568': [[{ name: 'visits', value: 'many' }]] }, /Variable "visits" is of type number/],
        [{ '380631234568': [[{ name: 'x', type: 'color', value: 'red' }]] }, /has type "color": use string, number or date/],
        [{ '380631234568': [[{ name: '123', value: 'digits only' }]] }, /must contain at least one letter/],
        [{ '380631234568': [[{ name: 'when', type: 'date', value: '2017-1-1' }]] }, /accepts only YYYY-MM-DD/],
        [{ '380631234568': 'not variables' }, /^Argument/],
      ]
      for (const [phones, message] of cases) {
        const res = await send({ method: 'POST', url: '/sms/numbers/variables', payload: { addressBookId: id, phones } })
        assert.equal(res.status, 422, JSON.stringify(res.body))
        assert.match(String(res.body.message), message)
      }
      assert.deepEqual(await stored(id), before)
      const none = await send({ method: 'POST', url: '/sms/numbers', payload: { addressBookId: id, phones: [] } })
      assert.equal(none.status, 422)
      const tooMany = await send({ method: 'POST', url: '/sms/numbers', payload: { addressBookId: id, phones: Array.from({ length: 10_001 }, () => '380631234567') } })
      assert.deepEqual(tooMany, { status: 422, body: { error_code: 422, message: 'Argument phones may hold at most 10000 numbers' } })
    })

    it('sets variables of several numbers with PUT, of one with POST …/phones/variable; an empty value removes one', async () => {
      const id = await newBook('Updates')
      await send({ method: 'POST', url: '/sms/numbers', payload: { addressBookId: id, phones: ['380631234567', '380631234568', '380631234569'] } })
      const put = await send({
        method: 'PUT',
        url: '/sms/numbers',
        // npm sends both as JSON strings; the Go SDK leaves `type` out.
        payload: { addressBookId: id, phones: JSON.stringify(['380631234567', '+380631234568', '447911123456', 'bad']), variables: JSON.stringify([{ name: 'tier', value: 'gold' }, { name: 'score', type: 'number', value: 10 }]) },
      })
      assert.deepEqual(put.body, { result: true, counters: { updated: 2 } }, 'a number the list does not have is neither counted nor added')
      const single = await send({ method: 'POST', url: `/addressbooks/${id}/phones/variable`, payload: { phone: 380631234567, variables: [{ name: 'tier', value: '' }, { name: 'score', value: '11' }] } })
      assert.deepEqual(single.body, { result: true })
      assert.deepEqual(await stored(id), [
        { phone: '380631234567', status: 1, variables: { score: 11 } },
        { phone: '380631234568', status: 1, variables: { tier: 'gold', score: 10 } },
        { phone: '380631234569', status: 1, variables: {} },
      ])
      const missing = await send({ method: 'POST', url: `/addressbooks/${id}/phones/variable`, payload: { phone: '447911123456', variables: [{ name: 'tier', value: 'x' }] } })
      assert.deepEqual(missing, { status: 404, body: { error_code: 404, message: 'Phone number not found in the book' } })
      const badType = await send({ method: 'PUT', url: '/sms/numbers', payload: { addressBookId: id, phones: ['380631234569'], variables: [{ name: 'score', value: 'high' }] } })
      assert.equal(badType.status, 422)
      assert.deepEqual((await stored(id))[2]?.variables, {})
    })

    it('answers the info of a number as an object, variables {} when none, with + literal or as %2B', async () => {
      const id = await newBook('Info')
      await send({ method: 'POST', url: '/sms/numbers/variables', payload: { addressBookId: id, phones: { '380631234567': [[{ name: 'city', value: 'Kyiv' }, { name: 'n', value: 2 }]] } } })
      await send({ method: 'POST', url: '/sms/numbers', payload: { addressBookId: id, phones: ['447911123456'] } })
      const added = new Date(t.clock.now).toISOString().slice(0, 19).replace('T', ' ')
      for (const phone of ['380631234567', '+380631234567', '%2B380631234567']) {
        assert.deepEqual(await info(id, phone), { status: 200, body: { result: true, data: { status: 1, variables: { city: 'Kyiv', n: 2 }, added } } }, phone)
      }
      const bare = await t.call(account, { method: 'GET', url: `/sms/numbers/info/${id}/447911123456` })
      assert.match(bare.body, /"variables":\{\}/, 'an empty object, never []')
      assert.deepEqual(await info(id, '380631234569'), { status: 404, body: { error_code: 404, message: 'Phone number not found in the book' } })
      assert.equal((await info(id, 'abc')).status, 422)
    })

    it('deletes numbers, counting those the list had', async () => {
      const id = await newBook('Deletes')
      await send({ method: 'POST', url: '/sms/numbers', payload: { addressBookId: id, phones: ['380631234567', '380631234568', '380631234569'] } })
      const res = await send({ method: 'DELETE', url: '/sms/numbers', payload: { addressBookId: id, phones: JSON.stringify(['+380631234567', 380631234568, '447911123456', 'x']) } })
      assert.deepEqual(res.body, { result: true, counters: { deleted: 2 } })
      assert.deepEqual((await stored(id)).map((r) => r.phone), ['380631234569'])
      assert.deepEqual(await counts(id), { active: 1, excluded: 0, new: 0 })
    })

    it('adds numbers as New under TIDINGS_CONTACT_ACTIVATION=manual, shown in new_phones_quantity', async () => {
      const manual = await startTestApp(dialect, { contactActivation: 'manual' })
      try {
        const owner = await manual.account()
        const id = (await manual.call(owner, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Manual' } })).json<{ id: number }>().id
        await manual.call(owner, { method: 'POST', url: '/sms/numbers', payload: { addressBookId: id, phones: ['380631234567', '380631234568'] } })
        const listed = (await manual.call(owner, { method: 'GET', url: '/addressbooks' })).json<Record<string, unknown>[]>()[0]
        assert.deepEqual([listed?.new_phones_quantity, listed?.active_phones_quantity, listed?.exc_phones_quantity], [2, 0, 0])
      } finally {
        await manual.close()
      }
    })

    it("answers 404 Book not found for another account's list or a deleted one on every route, changing nothing", async () => {
      const intruder = await t.account('intruder')
      const id = await newBook('Guarded')
      await send({ method: 'POST', url: '/sms/numbers/variables', payload: { addressBookId: id, phones: { '380631234567': [[{ name: 'secret', value: 'A' }]] } } })
      const before = await stored(id)
      const routes: InjectOptions[] = [
        { method: 'POST', url: '/sms/numbers', payload: { addressBookId: id, phones: ['380631234568'] } },
        { method: 'POST', url: '/sms/numbers/variables', payload: { addressBookId: id, phones: { '380631234567': [[{ name: 'secret', value: 'B' }]] } } },
        { method: 'PUT', url: '/sms/numbers', payload: { addressBookId: id, phones: ['380631234567'], variables: [{ name: 'secret', value: 'B' }] } },
        { method: 'DELETE', url: '/sms/numbers', payload: { addressBookId: id, phones: ['380631234567'] } },
        { method: 'POST', url: `/addressbooks/${id}/phones/variable`, payload: { phone: '380631234567', variables: [{ name: 'secret', value: 'B' }] } },
        { method: 'GET', url: `/sms/numbers/info/${id}/380631234567` },
      ]
      for (const route of routes) {
        assert.deepEqual(await send(route, intruder), { status: 404, body: { error_code: 213, message: 'Book not found' } }, `${route.method} ${route.url}`)
      }
      assert.deepEqual(await stored(id), before)
      // The intruder's own list with the same number is its own.
      const own = await newBook('Own', intruder)
      await send({ method: 'POST', url: '/sms/numbers', payload: { addressBookId: own, phones: ['380631234567'] } }, intruder)
      assert.deepEqual((await info(own, '380631234567', intruder)).body.data, { status: 1, variables: {}, added: new Date(t.clock.now).toISOString().slice(0, 19).replace('T', ' ') })
      assert.deepEqual(await stored(id), before)
      await t.call(account, { method: 'DELETE', url: `/addressbooks/${id}` })
      assert.deepEqual(await send(routes[0]!), { status: 404, body: { error_code: 213, message: 'Book not found' } }, 'a deleted list takes no numbers')
    })
  })
}
