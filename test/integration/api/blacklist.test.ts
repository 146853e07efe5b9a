// Email blacklist routes (API.md 4.7, COMPAT.md 13/17): Base64 `emails` in JSON and form bodies, order,
// paging, refusals that store nothing, isolation between accounts, and blacklistedAmong for the senders.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { snapshotDatabase, type TestAccount } from '../../helpers/factories.js'
import * as blacklist from '../../../src/services/audience/blacklist.js'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const b64 = (text: string) => Buffer.from(text).toString('base64')

for (const dialect of DIALECTS) {
  describe(`email blacklist on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount

    const list = async (who: TestAccount, url = '/blacklist') => {
      const res = await t.call(who, { method: 'GET', url })
      assert.equal(res.statusCode, 200, res.body)
      return res.json<string[]>()
    }
    const add = async (who: TestAccount, emails: string, comment?: string) => {
      const res = await t.call(who, { method: 'POST', url: '/blacklist', payload: { emails: b64(emails), ...(comment === undefined ? {} : { comment }) } })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { result: true })
      t.clock.advance(1000)
    }
    const remove = async (who: TestAccount, emails: string) => {
      const res = await t.call(who, { method: 'DELETE', url: '/blacklist', payload: { emails: b64(emails) } })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { result: true })
    }
    const rowsOf = (who: TestAccount) =>
      t.deps.db.selectFrom('email_blacklist').select(['email', 'comment']).where('account_id', '=', who.id).orderBy('email').execute()

    before(async () => {
      t = await startTestApp(dialect)
    })
    after(() => t.close())

    it('starts empty: GET /blacklist answers []', async () => {
      account = await t.account()
      assert.deepEqual(await list(account), [])
    })

    it('adds addresses given as Base64 of "a, b" (spaces after commas), lists them oldest first, domains lower-cased', async () => {
      const who = await t.account()
      await add(who, 'zed@example.com, Ann@Example.COM,  bob@example.org')
      await add(who, 'aaron@example.net')
      // Within one request the order is by address; across requests, by time of adding.
      assert.deepEqual(await list(who), ['Ann@example.com', 'bob@example.org', 'zed@example.com', 'aaron@example.net'])
    })

    it('takes form bodies, with the Base64 "+" percent-encoded or sent raw (form decoding turns it into a space)', async () => {
      const who = await t.account()
      const encoded = b64('aa~@example.com, aa?@example.com')
      assert.match(encoded, /\+/, 'the test value has a "+" to lose')
      const encodedForm = await t.call(who, { method: 'POST', url: '/blacklist', headers: FORM, payload: `emails=${encodeURIComponent(encoded)}&comment=from+a+form` })
      assert.deepEqual(encodedForm.json(), { result: true })
      assert.deepEqual(await rowsOf(who), [
        { email: 'aa?@example.com', comment: 'from a form' },
        { email: 'aa~@example.com', comment: 'from a form' },
      ])
      const removed = await t.call(who, { method: 'DELETE', url: '/blacklist', headers: FORM, payload: `emails=${encoded}` })
      assert.deepEqual(removed.json(), { result: true })
      assert.deepEqual(await list(who), [])
    })

    it('skips invalid addresses among valid ones, and separators may be commas, spaces or line breaks', async () => {
      const who = await t.account()
      await add(who, 'good@example.com,not-an-address, @example.com\nnext@example.com,,')
      assert.deepEqual(await list(who), ['good@example.com', 'next@example.com'])
    })

    it('refuses an emails value that is not Base64 with a 422 naming emails, and stores nothing', async () => {
      const who = await t.account()
      await add(who, 'kept@example.com')
      const before = await snapshotDatabase(t.deps)
      for (const emails of ['a@example.com', 'not base64!', 'YWJj=ZGVm', b64('x').slice(0, 1), Buffer.from([0xff, 0xfe, 0x40]).toString('base64')]) {
        for (const method of ['POST', 'DELETE'] as const) {
          const res = await t.call(who, { method, url: '/blacklist', payload: { emails } })
          assert.equal(res.statusCode, 422, `${method} ${emails}: ${res.body}`)
          const body = res.json<{ error_code: number; message: string }>()
          assert.equal(body.error_code, 422)
          assert.match(body.message, /^Argument emails must be Base64/)
        }
      }
      assert.deepEqual(await snapshotDatabase(t.deps), before)
    })

    it('refuses Base64 that holds no valid address, and a missing emails, with 422', async () => {
      const who = await t.account()
      const before = await snapshotDatabase(t.deps)
      const none = await t.call(who, { method: 'POST', url: '/blacklist', payload: { emails: b64('nobody, , at@') } })
      assert.equal(none.statusCode, 422)
      assert.match(none.json<{ message: string }>().message, /^Argument emails holds no valid email address/)
      const missing = await t.call(who, { method: 'POST', url: '/blacklist', payload: { comment: 'x' } })
      assert.deepEqual(missing.json(), { error_code: 422, message: 'Argument emails missing' })
      const empty = await t.call(who, { method: 'DELETE', url: '/blacklist', payload: { emails: '' } })
      assert.deepEqual(empty.json(), { error_code: 422, message: 'Argument emails missing' })
      assert.deepEqual(await snapshotDatabase(t.deps), before)
    })

    it('re-adding is idempotent: one entry, its place kept, the comment replaced only when one is given', async () => {
      const who = await t.account()
      await add(who, 'first@example.com', 'spam trap')
      await add(who, 'second@example.com')
      await add(who, 'first@EXAMPLE.com')
      assert.deepEqual(await rowsOf(who), [
        { email: 'first@example.com', comment: 'spam trap' },
        { email: 'second@example.com', comment: null },
      ])
      await add(who, 'first@example.com', 'complained')
      assert.deepEqual((await rowsOf(who))[0], { email: 'first@example.com', comment: 'complained' })
      assert.deepEqual(await list(who), ['first@example.com', 'second@example.com'])
    })

    it('removes only the given addresses; addresses not on the list are ignored', async () => {
      const who = await t.account()
      await add(who, 'a@example.com, b@example.com, c@example.com')
      await remove(who, 'b@EXAMPLE.com, never@example.com')
      assert.deepEqual(await list(who), ['a@example.com', 'c@example.com'])
    })

    it('pages with limit and offset; limit 0 or none means every address (the Python SDK sends limit 0)', async () => {
      const who = await t.account()
      for (const email of ['p1@example.com', 'p2@example.com', 'p3@example.com', 'p4@example.com']) await add(who, email)
      const all = ['p1@example.com', 'p2@example.com', 'p3@example.com', 'p4@example.com']
      assert.deepEqual(await list(who, '/blacklist?limit=2&offset=1'), ['p2@example.com', 'p3@example.com'])
      assert.deepEqual(await list(who, '/blacklist?offset=3'), ['p4@example.com'])
      assert.deepEqual(await list(who, `/blacklist?${encodeURIComponent('{"limit": 0, "offset": 0}')}`), all)
      const jsonBody = await t.call(who, { method: 'GET', url: '/blacklist', payload: { limit: 1, offset: 2 } })
      assert.deepEqual(jsonBody.json(), ['p3@example.com'])
      const bad = await t.call(who, { method: 'GET', url: '/blacklist?limit=lots' })
      assert.deepEqual(bad.json(), { error_code: 422, message: 'Argument limit must be integer' })
    })

    it("keeps accounts apart: B neither sees nor removes A's entries, and B's own entry is separate", async () => {
      const a = await t.account('blacklist A')
      const b = await t.account('blacklist B')
      await add(a, 'shared@example.com, only-a@example.com', 'A says')
      assert.deepEqual(await list(b), [])
      await remove(b, 'shared@example.com, only-a@example.com')
      assert.deepEqual(await list(a), ['only-a@example.com', 'shared@example.com'])
      await add(b, 'shared@example.com', 'B says')
      await remove(b, 'shared@example.com')
      assert.deepEqual(await rowsOf(a), [
        { email: 'only-a@example.com', comment: 'A says' },
        { email: 'shared@example.com', comment: 'A says' },
      ])
      assert.deepEqual(await list(b), [])
    })

    it('blacklistedAmong answers which given addresses the account blacklisted, in the form given, over many chunks', async () => {
      const a = await t.account('among A')
      const b = await t.account('among B')
      const many = Array.from({ length: 1203 }, (_, i) => `bulk${i}@example.com`)
      await blacklist.addToBlacklist(t.deps, a.id, many.filter((_, i) => i % 2 === 0))
      await blacklist.addToBlacklist(t.deps, b.id, ['bulk1@example.com'])
      const asked = [...many, 'bulk0@Example.com', 'not-an-address', 'bulk2@example.com']
      const found = await blacklist.blacklistedAmong(t.deps, a.id, asked)
      const expected = new Set([...many.filter((_, i) => i % 2 === 0), 'bulk0@Example.com'])
      assert.equal(found.size, expected.size)
      assert.deepEqual([...found].sort(), [...expected].sort())
      assert.ok(!found.has('bulk1@example.com'), "B's entry is not A's")
      assert.deepEqual(await blacklist.blacklistedAmong(t.deps, a.id, []), new Set())
      // Inside a transaction, through the same function.
      const inTx = await t.deps.db.transaction().execute((tx) => blacklist.blacklistedAmong({ ...t.deps, db: tx }, b.id, ['bulk1@example.com', 'bulk0@example.com']))
      assert.deepEqual(inTx, new Set(['bulk1@example.com']))
    })
  })
}
