// An address across the lists of an account (API.md 4.5): look-ups one and many, details, statistics with
// the blacklist, and deletion from every list of the account and of no other.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'

const WIRE_DATE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/

for (const dialect of DIALECTS) {
  describe(`addresses across lists on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    let other: TestAccount
    const books: number[] = []
    const newBook = async (who: TestAccount, bookName: string) =>
      (await t.call(who, { method: 'POST', url: '/addressbooks', payload: { bookName } })).json<{ id: number }>().id
    const add = (who: TestAccount, id: number, emails: unknown[]) => t.call(who, { method: 'POST', url: `/addressbooks/${id}/emails`, payload: { emails } })

    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account()
      other = await t.account()
      books.push(await newBook(account, 'First'), await newBook(account, 'Second'))
      await add(account, books[0]!, [{ email: 'both@example.com', variables: { name: 'Both', age: 3 } }, 'only@example.com'])
      await add(account, books[1]!, ['both@example.com'])
      const theirs = await newBook(other, 'Theirs')
      await add(other, theirs, [{ email: 'both@example.com', variables: { secret: 'theirs' } }])
    })
    after(() => t.close())

    it('GET /emails/{email} lists the account\'s lists holding the address, with an unescaped @ in the path', async () => {
      const res = await t.call(account, { method: 'GET', url: '/emails/both@example.com' })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), [
        { book_id: books[0], email: 'both@example.com', status: 1, status_explain: 'Active', variables: [{ name: 'name', type: 'string', value: 'Both' }, { name: 'age', type: 'number', value: '3' }] },
        { book_id: books[1], email: 'both@example.com', status: 1, status_explain: 'Active', variables: [] },
      ])
      const encoded = await t.call(account, { method: 'GET', url: '/emails/both%40EXAMPLE.com' })
      assert.equal(encoded.json<unknown[]>().length, 2, 'percent-encoded, with the domain in capitals')
      assert.deepEqual((await t.call(account, { method: 'GET', url: '/emails/nobody@example.com' })).json(), [])
      const invalid = await t.call(account, { method: 'GET', url: '/emails/not-an-address' })
      assert.deepEqual([invalid.statusCode, invalid.json()], [422, { error_code: 422, message: 'Argument email is invalid' }])
    })

    it('GET /emails/{email}/details names the lists with the date and source of each addition', async () => {
      const res = await t.call(account, { method: 'GET', url: '/emails/both@example.com/details' })
      const details = res.json<{ list_name: string; list_id: number; add_date: string; source: string }[]>()
      assert.deepEqual(details.map((d) => [d.list_name, d.list_id, d.source]), [['First', books[0], 'api'], ['Second', books[1], 'api']])
      for (const d of details) assert.match(d.add_date, WIRE_DATE)
    })

    it('POST /emails answers an object keyed by address, from {emails}, a bare array or an index-keyed form', async () => {
      const expected = {
        'both@example.com': [
          { book_id: books[0], status: 1, variables: [{ name: 'name', type: 'string', value: 'Both' }, { name: 'age', type: 'number', value: '3' }] },
          { book_id: books[1], status: 1, variables: [] },
        ],
        'only@example.com': [{ book_id: books[0], status: 1, variables: [] }],
      }
      const wrapped = await t.call(account, { method: 'POST', url: '/emails', payload: { emails: ['both@example.com', 'only@example.com', 'nobody@example.com'] } })
      assert.deepEqual(wrapped.json(), expected)
      const bare = await t.call(account, { method: 'POST', url: '/emails', payload: ['both@example.com', 'only@example.com'] })
      assert.deepEqual(bare.json(), expected)
      const form = await t.call(account, {
        method: 'POST',
        url: '/emails',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '0=both%40example.com&1=only%40example.com',
      })
      assert.deepEqual(form.json(), expected)
      const none = await t.call(account, { method: 'POST', url: '/emails', payload: { emails: ['nobody@example.com'] } })
      assert.equal(none.body, '{}', 'nothing matched: an empty object, not an array')
    })

    it('reports statistics with the blacklist state and the lists (adressbooks, as published)', async () => {
      await t.call(account, { method: 'POST', url: '/blacklist', payload: { emails: Buffer.from('only@example.com').toString('base64') } })
      const one = await t.call(account, { method: 'GET', url: '/emails/only@example.com/campaigns' })
      assert.deepEqual(one.json(), { statistic: { sent: 0, open: 0, link: 0 }, blacklist: true, addressbooks: [{ id: books[0], address_book_name: 'First' }] })
      const many = await t.call(account, { method: 'POST', url: '/emails/campaigns', payload: { emails: ['both@example.com', 'only@example.com'] } })
      assert.deepEqual(many.json(), {
        'both@example.com': { sent: 0, open: 0, link: 0, adressbooks: [{ id: books[0], name: 'First' }, { id: books[1], name: 'Second' }], blacklist: false },
        'only@example.com': { sent: 0, open: 0, link: 0, adressbooks: [{ id: books[0], name: 'First' }], blacklist: true },
      })
      const theirs = await t.call(other, { method: 'GET', url: '/emails/only@example.com/campaigns' })
      assert.deepEqual(theirs.json(), { statistic: { sent: 0, open: 0, link: 0 }, blacklist: false, addressbooks: [] }, "another account's blacklist is not this one's")
    })

    it('DELETE /emails/{email} removes the address from every list of the account and from no other account', async () => {
      const res = await t.call(account, { method: 'DELETE', url: '/emails/both@example.com' })
      assert.deepEqual(res.json(), { result: true })
      assert.deepEqual((await t.call(account, { method: 'GET', url: '/emails/both@example.com' })).json(), [])
      const theirs = (await t.call(other, { method: 'GET', url: '/emails/both@example.com' })).json<{ variables: unknown[] }[]>()
      assert.equal(theirs.length, 1, "the other account's contact is still there")
      assert.deepEqual(theirs[0]?.variables, [{ name: 'secret', type: 'string', value: 'theirs' }])
      const counts = (await t.call(account, { method: 'GET', url: `/addressbooks/${books[1]}` })).json<{ all_email_qty: number }[]>()
      assert.equal(counts[0]?.all_email_qty, 0)
    })

    it('never shows one account the contacts of another', async () => {
      const theirs = await t.call(other, { method: 'POST', url: '/emails', payload: { emails: ['only@example.com'] } })
      assert.equal(theirs.body, '{}')
      assert.deepEqual((await t.call(other, { method: 'GET', url: '/emails/only@example.com/details' })).json(), [])
    })
  })
}
