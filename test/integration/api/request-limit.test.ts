// The per-account request limit (TIDINGS_API_RATE, TIDINGS_API_BURST): over it, 429 with Retry-After and the error
// body until the bucket refills; another account keeps its own; the token call is neither refused nor counted
// (COMPAT.md, Authentication); 0 turns it off. The test clock moves only when told, so the counts are exact.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { loadConfig } from '../../../src/config/load.js'

// 50/s takes 5 at a time (a tenth of a second's worth): the local chunks and the shared bucket are both crossed.
const RATE = 50
const BURST = 10

for (const dialect of DIALECTS) {
  describe(`per-account request limit on ${dialect}`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp(dialect, { apiRatePerSecond: RATE, apiBurst: BURST })
    })
    after(() => t.close())

    const list = (account: TestAccount) => t.call(account, { method: 'GET', url: '/addressbooks' })
    /** How many of `count` calls were answered 200; every other answer must be the 429. */
    const accepted = async (account: TestAccount, count: number): Promise<number> => {
      let ok = 0
      for (let i = 0; i < count; i++) {
        const answer = await list(account)
        if (answer.statusCode === 200) ok++
        else assert.equal(answer.statusCode, 429, answer.body)
      }
      return ok
    }

    it('answers the burst, then 429 with Retry-After and the error body, and refills at the rate', async () => {
      const account = await t.account()
      assert.equal(await accepted(account, BURST), BURST)
      const refused = await list(account)
      assert.equal(refused.statusCode, 429)
      assert.deepEqual(refused.json(), { error_code: 429, message: 'Too many requests' })
      const retryAfter = refused.headers['retry-after']
      assert.match(String(retryAfter), /^[1-9][0-9]*$/)
      assert.equal(await accepted(account, 5), 0)

      // A fifth of a second refills 10 at 50/s; a full second would too (the burst caps it).
      t.clock.advance(200)
      assert.equal(await accepted(account, BURST + 5), BURST)
      t.clock.advance(60_000)
      assert.equal(await accepted(account, BURST + 5), BURST)
      t.clock.advance(100)
      assert.equal(await accepted(account, BURST), RATE / 10)
    })

    it('leaves another account its own limit', async () => {
      const busy = await t.account()
      const other = await t.account()
      assert.equal(await accepted(busy, BURST + 3), BURST)
      assert.equal(await accepted(other, BURST + 3), BURST)
      assert.equal((await list(busy)).statusCode, 429)
    })

    it('never refuses nor counts the token call with the right credentials', async () => {
      const account = await t.account()
      assert.equal(await accepted(account, BURST + 1), BURST)
      for (let i = 0; i < 3; i++) {
        const answer = await t.app.inject({
          method: 'POST',
          url: '/oauth/access_token',
          payload: { grant_type: 'client_credentials', client_id: account.clientId, client_secret: account.clientSecret },
        })
        assert.equal(answer.statusCode, 200, answer.body)
        assert.equal(typeof answer.json<{ access_token: unknown }>().access_token, 'string')
        account.token = answer.json<{ access_token: string }>().access_token
      }
      // Still refused with the new token (the limit is the account's), and the token calls took nothing from it.
      assert.equal((await list(account)).statusCode, 429)
      t.clock.advance(1000)
      assert.equal(await accepted(account, BURST + 1), BURST)
    })

    it('does not count public routes', async () => {
      const account = await t.account()
      for (let i = 0; i < BURST * 2; i++) assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
      assert.equal(await accepted(account, BURST + 1), BURST)
    })
  })

  describe(`TIDINGS_API_RATE=0 on ${dialect}`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp(dialect, { apiRatePerSecond: 0, apiBurst: 1 })
    })
    after(() => t.close())

    it('turns the limit off', async () => {
      const account = await t.account()
      for (let i = 0; i < 50; i++) assert.equal((await t.call(account, { method: 'GET', url: '/addressbooks' })).statusCode, 200)
    })
  })
}

describe('request limit settings', () => {
  it('default to 100 a second with bursts of 200, read from TIDINGS_API_RATE and TIDINGS_API_BURST', () => {
    const defaults = loadConfig({ env: {} })
    assert.equal(defaults.apiRatePerSecond, 100)
    assert.equal(defaults.apiBurst, 200)
    const set = loadConfig({ env: { TIDINGS_API_RATE: '0', TIDINGS_API_BURST: '5' } })
    assert.equal(set.apiRatePerSecond, 0)
    assert.equal(set.apiBurst, 5)
    assert.throws(() => loadConfig({ env: { TIDINGS_API_BURST: '0' } }), /TIDINGS_API_BURST/)
  })
})
