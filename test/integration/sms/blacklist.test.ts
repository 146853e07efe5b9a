// The SMS blacklist (API.md 4.11 `/sms/black_list…`): counters and entries in the shapes the SDKs decode
// (COMPAT.md "SMS and Viber" 1, 3, 4), `by_numbers` from every client's query (6, 7), the list counts that
// show blacklisted numbers as excluded, and one account never seeing or changing another's.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { InjectOptions } from 'fastify'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

for (const dialect of DIALECTS) {
  describe(`the SMS blacklist on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    let other: TestAccount
    const send = async (options: InjectOptions, who = account) => {
      const res = await t.call(who, options)
      return { status: res.statusCode, body: res.json<Record<string, unknown>>() }
    }
    const entries = async (who = account) => (await send({ method: 'GET', url: '/sms/black_list' }, who)).body
    const wireNow = () => new Date(t.clock.now).toISOString().slice(0, 19).replace('T', ' ')

    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account('owner')
      other = await t.account('other')
    })
    after(() => t.close())

    it('adds numbers with and without a description, counting added, exists and invalid exceptions; lists them with integer phones', async () => {
      assert.deepEqual(await entries(), { result: true, data: [] })
      const added = await send({ method: 'POST', url: '/sms/black_list', payload: { phones: ['+380631234567', 380631234568, 'nope', '12'], description: 'asked to stop' } })
      assert.deepEqual(added, { status: 200, body: { result: true, counters: { added: 2, exists: 0, exceptions: 2 } } })
      const at = wireNow()
      t.clock.advance(1000)
      // npm sends phones as a JSON string and no description when none is given.
      const again = await send({ method: 'POST', url: '/sms/black_list', payload: { phones: JSON.stringify(['380631234567', '447911123456']) } })
      assert.deepEqual(again.body, { result: true, counters: { added: 1, exists: 1, exceptions: 0 } })
      assert.deepEqual(await entries(), {
        result: true,
        data: [
          { phone: 380631234567, description: 'asked to stop', add_date: at },
          { phone: 380631234568, description: 'asked to stop', add_date: at },
          { phone: 447911123456, description: '', add_date: wireNow() },
        ],
      })
      const stored = await t.deps.db.selectFrom('sms_blacklist').select('phone').where('account_id', '=', account.id).orderBy('phone').execute()
      assert.deepEqual(stored.map((r) => r.phone), ['380631234567', '380631234568', '447911123456'], 'nothing invalid is stored')
    })

    it('finds entries by numbers from a form query, a JSON query (Python), a GET body (npm) and Go\'s unquoted [a,b]', async () => {
      const expected = [380631234567, 447911123456]
      const variants: InjectOptions[] = [
        { method: 'GET', url: `/sms/black_list/by_numbers?phones=${encodeURIComponent(JSON.stringify(['380631234567', '447911123456', '380501234567']))}` },
        { method: 'GET', url: `/sms/black_list/by_numbers?${encodeURIComponent(JSON.stringify({ phones: JSON.stringify(['380631234567', '+447911123456']) }))}` },
        { method: 'GET', url: '/sms/black_list/by_numbers', payload: { phones: JSON.stringify(['380631234567', '447911123456']) } },
        // url.Values.Encode() of Go's "[" + strings.Join(phones, ",") + "]"
        { method: 'GET', url: '/sms/black_list/by_numbers?phones=%5B%2B380631234567%2C447911123456%2Cjunk%5D' },
        { method: 'GET', url: '/sms/black_list/by_numbers?phones[0]=380631234567&phones[1]=447911123456' },
      ]
      for (const variant of variants) {
        const res = await send(variant)
        assert.equal(res.status, 200, `${String(variant.url)} ${JSON.stringify(res.body)}`)
        assert.deepEqual((res.body.data as { phone: number }[]).map((e) => e.phone), expected, String(variant.url))
      }
      const none = await send({ method: 'GET', url: '/sms/black_list/by_numbers?phones=%5B380501234567%5D' })
      assert.deepEqual(none.body, { result: true, data: [] })
      assert.equal((await send({ method: 'GET', url: '/sms/black_list/by_numbers' })).status, 422)
    })

    it('removes numbers, counting those that were blacklisted', async () => {
      const removed = await send({ method: 'DELETE', url: '/sms/black_list', headers: FORM, payload: 'phones[0]=380631234568&phones[1]=380501234567&phones[2]=x' })
      assert.deepEqual(removed.body, { result: true, counters: { removed: 1 } })
      assert.deepEqual(((await entries()).data as { phone: number }[]).map((e) => e.phone), [380631234567, 447911123456])
    })

    it('shows blacklisted numbers of a list as excluded in the list counts, and active again once removed', async () => {
      const id = (await send({ method: 'POST', url: '/addressbooks', payload: { bookName: 'Counted' } })).body.id as number
      await send({ method: 'POST', url: '/sms/numbers', payload: { addressBookId: id, phones: ['380631234567', '380631234569', '380501234567'] } })
      const counts = async () => {
        const [book] = (await t.call(account, { method: 'GET', url: `/addressbooks/${id}` })).json<Record<string, number>[]>()
        return [book?.active_phones_quantity, book?.exc_phones_quantity]
      }
      assert.deepEqual(await counts(), [2, 1], '380631234567 is blacklisted')
      await send({ method: 'DELETE', url: '/sms/black_list', payload: { phones: ['380631234567'] } })
      assert.deepEqual(await counts(), [3, 0])
      await send({ method: 'POST', url: '/sms/black_list', payload: { phones: ['380631234567'], description: 'again' } })
      // Another account's blacklist does not touch this list.
      await send({ method: 'POST', url: '/sms/black_list', payload: { phones: ['380631234569'] } }, other)
      assert.deepEqual(await counts(), [2, 1])
    })

    it("keeps each account's blacklist its own: another account neither reads nor removes it", async () => {
      const before = await entries()
      assert.deepEqual(await entries(other), { result: true, data: [{ phone: 380631234569, description: '', add_date: wireNow() }] })
      const probe = await send({ method: 'GET', url: '/sms/black_list/by_numbers?phones=%5B380631234567%2C447911123456%5D' }, other)
      assert.deepEqual(probe.body, { result: true, data: [] })
      const removed = await send({ method: 'DELETE', url: '/sms/black_list', payload: { phones: ['380631234567', '447911123456'] } }, other)
      assert.deepEqual(removed.body, { result: true, counters: { removed: 0 } })
      const added = await send({ method: 'POST', url: '/sms/black_list', payload: { phones: ['380631234567'], description: 'by other' } }, other)
      assert.deepEqual(added.body, { result: true, counters: { added: 1, exists: 0, exceptions: 0 } }, "the same number is new on the other account's list")
      assert.deepEqual(await entries(), before)
    })

    it('refuses a missing or empty phones argument and a description with a NUL, storing nothing', async () => {
      const before = await entries()
      for (const payload of [{}, { phones: [] }, { phones: ['380501234567'], description: 'a\u0000b' }]) {
        const res = await send({ method: 'POST', url: '/sms/black_list', payload })
        assert.equal(res.status, 422, JSON.stringify(payload))
        assert.equal(typeof res.body.message, 'string')
      }
      assert.deepEqual(await entries(), before)
    })
  })
}
