// Accounts see only their own mailing lists: another account's list answers 404 "Book not found" on every
// route, exactly as a list that does not exist, and is never changed.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { InjectOptions } from 'fastify'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { insertContacts, type TestAccount } from '../../helpers/factories.js'

type Book = { id: number; name: string; status: number }

const A_LIST = "A's customers"

/** Every mailing-list route that takes a list id. */
const ROUTES: { what: string; request: (id: number) => InjectOptions }[] = [
  { what: 'GET /addressbooks/{id}', request: (id) => ({ method: 'GET', url: `/addressbooks/${id}` }) },
  { what: 'PUT /addressbooks/{id}', request: (id) => ({ method: 'PUT', url: `/addressbooks/${id}`, payload: { name: 'Taken over by B' } }) },
  { what: 'DELETE /addressbooks/{id}', request: (id) => ({ method: 'DELETE', url: `/addressbooks/${id}` }) },
  { what: 'GET /addressbooks/{id}/variables', request: (id) => ({ method: 'GET', url: `/addressbooks/${id}/variables` }) },
  { what: 'GET /addressbooks/{id}/emails/total', request: (id) => ({ method: 'GET', url: `/addressbooks/${id}/emails/total` }) },
  { what: 'GET /addressbooks/{id}/cost', request: (id) => ({ method: 'GET', url: `/addressbooks/${id}/cost` }) },
  { what: 'GET /addressbooks/{id}/campaigns', request: (id) => ({ method: 'GET', url: `/addressbooks/${id}/campaigns` }) },
]

for (const dialect of DIALECTS) {
  describe(`isolation of mailing lists between accounts on ${dialect}`, () => {
    let testApp: TestApp
    let a: TestAccount
    let b: TestAccount
    let aList: number
    let aRow: unknown

    const readARow = () => testApp.deps.db.selectFrom('address_books').selectAll().where('id', '=', aList).executeTakeFirstOrThrow()

    before(async () => {
      testApp = await startTestApp(dialect)
      a = await testApp.account('account A')
      b = await testApp.account('account B')
      const created = await testApp.call(a, { method: 'POST', url: '/addressbooks', payload: { bookName: A_LIST } })
      assert.equal(created.statusCode, 200)
      aList = created.json<{ id: number }>().id
      // Contacts make every route of A's list answer real data to A (the cost of an empty list is an error).
      await insertContacts(testApp.deps, [
        { accountId: a.id, bookId: aList, email: 'one@a.example', status: 1 },
        { accountId: a.id, bookId: aList, email: 'two@a.example', status: 1, phone: '380631234567' },
      ])
      aRow = await readARow()
    })
    after(() => testApp.close())

    for (const route of ROUTES) {
      it(`answers B's ${route.what} on A's list with 404 {error_code: 213, message: "Book not found"}`, async () => {
        const res = await testApp.call(b, route.request(aList))
        assert.equal(res.statusCode, 404, `body: ${res.body}`)
        assert.deepEqual(res.json(), { error_code: 213, message: 'Book not found' })
        // The same answer as for a list that does not exist: B cannot tell that A's id is taken.
        const missing = await testApp.call(b, route.request(aList + 1000))
        assert.equal(missing.statusCode, 404)
        assert.deepEqual(missing.json(), res.json())
      })
    }

    it("leaves A's list out of B's GET /addressbooks", async () => {
      const own = await testApp.call(b, { method: 'POST', url: '/addressbooks', payload: { bookName: "B's own list" } })
      assert.equal(own.statusCode, 200)
      const res = await testApp.call(b, { method: 'GET', url: '/addressbooks' })
      assert.equal(res.statusCode, 200)
      const books = res.json<Book[]>()
      assert.deepEqual(books.map((x) => x.name), ["B's own list"])
      assert.ok(!books.some((x) => x.id === aList))
      const paged = await testApp.call(b, { method: 'GET', url: '/addressbooks', payload: { limit: 100, offset: 0 } })
      assert.ok(!paged.json<Book[]>().some((x) => x.id === aList))
    })

    it("keeps A's list unchanged after everything B tried", async () => {
      const res = await testApp.call(a, { method: 'GET', url: `/addressbooks/${aList}` })
      assert.equal(res.statusCode, 200)
      const [book] = res.json<Book[]>()
      assert.equal(book?.name, A_LIST)
      assert.equal(book?.status, 0)
      const total = await testApp.call(a, { method: 'GET', url: `/addressbooks/${aList}/emails/total` })
      assert.deepEqual(total.json(), { total: 2 })
      const cost = await testApp.call(a, { method: 'GET', url: `/addressbooks/${aList}/cost` })
      assert.equal(cost.statusCode, 200, `body: ${cost.body}`)
      const listed = await testApp.call(a, { method: 'GET', url: '/addressbooks' })
      assert.deepEqual(listed.json<Book[]>().map((x) => x.id), [aList])
      assert.deepEqual(await readARow(), aRow, 'the stored row, updated_at included, is untouched')
    })

    it('lets B create a list with the same name as one of A (names are unique per account only)', async () => {
      const twin = await testApp.call(b, { method: 'POST', url: '/addressbooks', payload: { bookName: A_LIST } })
      assert.equal(twin.statusCode, 200, `body: ${twin.body}`)
      const twinId = twin.json<{ id: number }>().id
      assert.notEqual(twinId, aList)
      const ofB = await testApp.call(b, { method: 'GET', url: `/addressbooks/${twinId}` })
      assert.equal(ofB.json<Book[]>()[0]?.name, A_LIST)
      const ofA = await testApp.call(a, { method: 'GET', url: `/addressbooks/${aList}` })
      assert.equal(ofA.json<Book[]>()[0]?.name, A_LIST)
      // Still unique within B: a second one is refused.
      const again = await testApp.call(b, { method: 'POST', url: '/addressbooks', payload: { bookName: A_LIST } })
      assert.deepEqual(again.json(), { error_code: 203, message: 'Name already in use' })
      // Renames follow the same rule: A may rename its list to the name of one of B's lists.
      const aRename = await testApp.call(a, { method: 'PUT', url: `/addressbooks/${aList}`, payload: { name: "B's own list" } })
      assert.equal(aRename.statusCode, 200, `body: ${aRename.body}`)
      assert.deepEqual(aRename.json(), { result: true })
    })
  })
}
