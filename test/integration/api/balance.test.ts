// Balance routes (API.md 2.8, 4.8, COMPAT.md 6 and the Go SDK's strict types): the ledger sum in the
// account currency, conversion through currencyRates exact to the micro-unit, refusals, the detailed
// form field by field, and isolation between accounts.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { insertContacts, type TestAccount } from '../../helpers/factories.js'
import * as accounts from '../../../src/services/accounts/accounts.js'

for (const dialect of DIALECTS) {
  describe(`balance on ${dialect}`, () => {
    let t: TestApp
    // A second server whose rates convert (EUR at 0.5 per USD) and whose emails are free.
    let rated: TestApp

    const get = async (app: TestApp, who: TestAccount, url: string) => {
      const res = await app.call(who, { method: 'GET', url })
      return { status: res.statusCode, body: res.json<Record<string, unknown>>() }
    }
    const setAccount = (app: TestApp, who: TestAccount, change: { currency?: string; plan?: string }) =>
      app.deps.db.updateTable('accounts').set(change).where('id', '=', who.id).execute()

    before(async () => {
      t = await startTestApp(dialect)
      rated = await startTestApp(dialect, { currencyRates: 'USD=1, EUR=0.5, UAH=41.3', emailPrice: 0 })
    })
    after(async () => {
      await t.close()
      await rated.close()
    })

    it('answers the ledger sum after credits and a negative correction, as {currency, balance_currency: number}', async () => {
      const who = await t.account()
      assert.deepEqual(await get(t, who, '/balance'), { status: 200, body: { currency: 'USD', balance_currency: 100 } })
      await accounts.creditAccount(t.deps, who.id, '12.5')
      await accounts.creditAccount(t.deps, who.id, '-0.000001')
      assert.deepEqual((await get(t, who, '/balance')).body, { currency: 'USD', balance_currency: 112.499999 })
      assert.deepEqual((await get(t, who, '/balance/')).body, { currency: 'USD', balance_currency: 112.499999 }, 'trailing slash')
      const entries = await t.deps.db.selectFrom('ledger_entries').select('amount_micros').where('account_id', '=', who.id).orderBy('id').execute()
      assert.deepEqual(entries.map((e) => Number(e.amount_micros)), [100_000_000, 12_500_000, -1], 'each change is a ledger entry')
    })

    it('answers the account currency in any case (usd, USD, Usd) without conversion', async () => {
      const who = await t.account()
      for (const code of ['usd', 'USD', 'Usd']) {
        assert.deepEqual(await get(t, who, `/balance/${code}`), { status: 200, body: { currency: 'USD', balance_currency: 100 } })
      }
    })

    it('converts with the configured rates, rounded to the micro-unit', async () => {
      const who = await rated.account()
      assert.deepEqual((await get(rated, who, '/balance/eur')).body, { currency: 'EUR', balance_currency: 50 })
      await accounts.creditAccount(rated.deps, who.id, '0.000002')
      // 100.000002 USD × 41.3 = 4130.0000826 UAH: 4130.000083 to the nearest micro-unit.
      assert.deepEqual((await get(rated, who, '/balance/UAH')).body, { currency: 'UAH', balance_currency: 4130.000083 })
      await setAccount(rated, who, { currency: 'EUR' })
      assert.deepEqual((await get(rated, who, '/balance')).body, { currency: 'EUR', balance_currency: 100.000002 })
      assert.deepEqual((await get(rated, who, '/balance/usd')).body, { currency: 'USD', balance_currency: 200.000004 })
    })

    it('refuses a currency without a rate, and a malformed code, with a 422 JSON error that names the problem', async () => {
      const who = await rated.account()
      const unknown = await get(rated, who, '/balance/xyz')
      assert.equal(unknown.status, 422)
      assert.deepEqual(unknown.body, { error_code: 422, message: 'Currency XYZ is not supported; supported currencies: USD, EUR, UAH' })
      // The default rates know only USD.
      const unconfigured = await get(t, await t.account(), '/balance/EUR')
      assert.deepEqual(unconfigured.body, { error_code: 422, message: 'Currency EUR is not supported; supported currencies: USD' })
      for (const code of ['us', 'usdollar', 'u5d', '%C3%BCsd']) {
        const bad = await get(rated, who, `/balance/${code}`)
        assert.equal(bad.status, 422, code)
        assert.match(String(bad.body.message), /^Argument currency must be a 3-letter currency code such as USD/, code)
      }
      // An account whose own currency has no rate still sees its balance, but cannot convert it.
      await setAccount(rated, who, { currency: 'GBP' })
      assert.deepEqual((await get(rated, who, '/balance/gbp')).body, { currency: 'GBP', balance_currency: 100 })
      assert.deepEqual(await get(rated, who, '/balance/usd'), {
        status: 422,
        body: { error_code: 422, message: 'The balance cannot be converted from GBP: no rate is configured for it' },
      })
    })

    it('answers the detailed form with the exact types: strings for main and bonus, smtp and push objects of the published fields', async () => {
      const who = await t.account()
      const res = await t.call(who, { method: 'GET', url: '/user/balance/detail' })
      assert.equal(res.statusCode, 200)
      // The raw text, so a number where a string belongs (or [] for null) cannot slip through.
      assert.equal(
        res.body,
        JSON.stringify({
          balance: { main: '100.00', bonus: '0.00', currency: 'USD' },
          // 100 USD at 0.0044 per email (the default price) pays for 22727 emails.
          email: { tariff_name: 'pro', finished_time: null, emails_left: 22727, maximum_subscribers: 10_000_000, current_subscribers: 0 },
          // API.md 2.8 and the OpenAPI file publish these fields; Tidings has neither tariff, so they say "none".
          smtp: {
            tariff_name: 'none',
            end_date: null,
            auto_renew: 0,
            email_qty: 0,
            email_qty_left: 0,
            qty_per_hour: 0,
            traffic_limit: '0',
            traffic_limit_left: '0',
          },
          push: { tariff_name: 'none', end_date: null, auto_renew: 0 },
        }),
      )
    })

    it('counts distinct subscribers across live lists, and follows the plan and a negative balance', async () => {
      const who = await t.account()
      const book = async (bookName: string) => (await t.call(who, { method: 'POST', url: '/addressbooks', payload: { bookName } })).json<{ id: number }>().id
      const [one, two, gone] = [await book('one'), await book('two'), await book('gone')]
      await insertContacts(t.deps, [
        { accountId: who.id, bookId: one, email: 'a@example.com', status: 1 },
        { accountId: who.id, bookId: one, email: 'b@example.com', status: 0 },
        { accountId: who.id, bookId: two, email: 'a@example.com', status: 1 },
        { accountId: who.id, bookId: two, email: 'c@example.com', status: 2 },
        { accountId: who.id, bookId: gone, email: 'd@example.com', status: 1 },
      ])
      const detail = async () => (await get(t, who, '/user/balance/detail')).body as { balance: { main: string }; email: Record<string, unknown> }
      assert.equal((await detail()).email.current_subscribers, 4)
      await t.call(who, { method: 'DELETE', url: `/addressbooks/${gone}` })
      assert.equal((await detail()).email.current_subscribers, 3, 'a list marked as deleted no longer counts')

      await setAccount(t, who, { plan: 'free' })
      await accounts.creditAccount(t.deps, who.id, '-105.5')
      const after = await detail()
      assert.equal(after.balance.main, '-5.50')
      assert.deepEqual(after.email, { tariff_name: 'free', finished_time: null, emails_left: 0, maximum_subscribers: 500, current_subscribers: 3 })
    })

    it('answers a large emails_left when emails are free (emailPrice 0)', async () => {
      const who = await rated.account()
      const body = (await get(rated, who, '/user/balance/detail')).body as { email: { emails_left: number } }
      assert.equal(body.email.emails_left, 2_147_483_647)
    })

    it('shows each account only its own balance and subscribers', async () => {
      const a = await t.account('balance A')
      const b = await t.account('balance B')
      await accounts.creditAccount(t.deps, a.id, '900')
      const aBook = (await t.call(a, { method: 'POST', url: '/addressbooks', payload: { bookName: 'A list' } })).json<{ id: number }>().id
      await insertContacts(t.deps, [{ accountId: a.id, bookId: aBook, email: 'x@example.com', status: 1 }])
      assert.deepEqual((await get(t, a, '/balance')).body, { currency: 'USD', balance_currency: 1000 })
      assert.deepEqual((await get(t, b, '/balance')).body, { currency: 'USD', balance_currency: 100 })
      assert.deepEqual((await get(t, b, '/balance/usd')).body, { currency: 'USD', balance_currency: 100 })
      const bDetail = (await get(t, b, '/user/balance/detail')).body as { balance: { main: string }; email: { current_subscribers: number } }
      assert.equal(bDetail.balance.main, '100.00')
      assert.equal(bDetail.email.current_subscribers, 0)
      const aDetail = (await get(t, a, '/user/balance/detail')).body as { balance: { main: string }; email: { current_subscribers: number } }
      assert.equal(aDetail.balance.main, '1000.00')
      assert.equal(aDetail.email.current_subscribers, 1)
    })
  })
}
