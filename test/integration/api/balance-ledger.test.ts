// GET /balance/ledger (a Tidings extension for the console's Balance page): the entries GET /balance sums, newest
// first, paged (at most 100), only the caller's own, and documented in /openapi.json as an extension.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import * as accounts from '../../../src/services/accounts/accounts.js'

interface Entry {
  id: number
  amount: number
  kind: string
  note: string | null
  created: string
}

for (const dialect of DIALECTS) {
  describe(`the balance ledger on ${dialect}`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp(dialect)
    })
    after(() => t.close())

    it("lists the account's own entries newest first, which sum to the balance", async () => {
      const who = await t.account('Ledger Ltd')
      const other = await t.account('Other Ltd')
      await accounts.creditAccount(t.deps, who.id, '12.5')
      await accounts.creditAccount(t.deps, who.id, '-0.000001')
      await accounts.creditAccount(t.deps, other.id, '7')
      const res = await t.call(who, { method: 'GET', url: '/balance/ledger' })
      assert.equal(res.statusCode, 200, res.body)
      const entries = res.json<Entry[]>()
      assert.deepEqual(
        entries.map((e) => [e.amount, e.kind, e.note]),
        [
          [-0.000001, 'credit', 'operator credit'],
          [12.5, 'credit', 'operator credit'],
          [100, 'credit', 'initial balance'],
        ],
      )
      assert.match(entries[0]!.created, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
      const sum = entries.reduce((total, e) => total + Math.round(e.amount * 1e6), 0) / 1e6
      assert.equal(sum, (await t.call(who, { method: 'GET', url: '/balance' })).json<{ balance_currency: number }>().balance_currency)
      const page = await t.call(who, { method: 'GET', url: '/balance/ledger?limit=1&offset=1' })
      assert.deepEqual(page.json<Entry[]>().map((e) => e.amount), [12.5])
      assert.deepEqual((await t.call(other, { method: 'GET', url: '/balance/ledger' })).json<Entry[]>().map((e) => e.amount), [7, 100])
    })

    it('refuses a bad page with a 4xx error body, and is documented as an extension', async () => {
      const who = await t.account()
      const bad = await t.call(who, { method: 'GET', url: '/balance/ledger?limit=-1' })
      assert.equal(bad.statusCode, 422)
      assert.ok(typeof bad.json<{ message: string }>().message === 'string')
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, { get?: Record<string, unknown> }> }>()
      assert.equal(doc.paths['/balance/ledger']?.get?.['x-tidings-extension'], true)
    })
  })
}
