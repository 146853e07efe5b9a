// The real npm SDK (`sendpulse-api` 1.1.7), unchanged, against a listening server: the email blacklist
// (Base64 of the string given, JSON bodies on GET and DELETE) and the balance (currency upper-cased).
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { call, startSdkHarness, type SdkHarness } from '../../helpers/npm-sdk.js'
import * as accounts from '../../../src/services/accounts/accounts.js'

for (const dialect of DIALECTS) {
  describe(`the npm SDK's blacklist and balance methods against the server on ${dialect}`, () => {
    let harness: SdkHarness

    before(async () => {
      harness = await startSdkHarness(dialect)
      await harness.init()
    })
    after(async () => {
      await harness?.close()
    })
    beforeEach(() => {
      harness.exchanges.length = 0
    })

    it('reads the balance with getBalance() and getBalance("usd"), which the SDK sends as /balance/USD', async () => {
      assert.deepEqual(await call(harness.sdk.getBalance), { currency: 'USD', balance_currency: 100 })
      await accounts.creditAccount(harness.testApp.deps, harness.account.id, '12.5')
      assert.deepEqual(await call(harness.sdk.getBalance, 'usd'), { currency: 'USD', balance_currency: 112.5 })
      assert.deepEqual(harness.paths(), ['GET /balance 200', 'GET /balance/USD 200'])
    })

    it('passes the JSON error of an unknown currency to the callback', async () => {
      const answer = await call<{ error_code: number; message: string }>(harness.sdk.getBalance, 'xyz')
      assert.deepEqual(answer, { error_code: 422, message: 'Currency XYZ is not supported; supported currencies: USD' })
    })

    it('adds with addToBlackList, lists with getBlackList, removes with removeFromBlackList', async () => {
      assert.deepEqual(await call(harness.sdk.getBlackList), [])
      assert.deepEqual(await call(harness.sdk.addToBlackList, 'a@example.com, b@example.com', 'unsubscribed by phone'), { result: true })
      // Without a comment the SDK sends `comment: ""`, which means "not given".
      assert.deepEqual(await call(harness.sdk.addToBlackList, 'c@example.com'), { result: true })
      const listed = await call<string[]>(harness.sdk.getBlackList)
      assert.deepEqual([...listed].sort(), ['a@example.com', 'b@example.com', 'c@example.com'])
      assert.deepEqual(await call(harness.sdk.removeFromBlackList, 'b@example.com,c@example.com'), { result: true })
      assert.deepEqual(await call(harness.sdk.getBlackList), ['a@example.com'])
      assert.deepEqual(harness.paths(), [
        'GET /blacklist 200',
        'POST /blacklist 200',
        'POST /blacklist 200',
        'GET /blacklist 200',
        'DELETE /blacklist 200',
        'GET /blacklist 200',
      ])
      const stored = await harness.testApp.deps.db
        .selectFrom('email_blacklist')
        .select(['email', 'comment'])
        .where('account_id', '=', harness.account.id)
        .execute()
      assert.deepEqual(stored, [{ email: 'a@example.com', comment: 'unsubscribed by phone' }])
    })

    it('passes the 422 of an address list with no valid address to the callback', async () => {
      const answer = await call<{ error_code: number; message: string }>(harness.sdk.addToBlackList, 'not an address')
      assert.equal(answer.error_code, 422)
      assert.match(answer.message, /^Argument emails holds no valid email address/)
    })
  })
}
