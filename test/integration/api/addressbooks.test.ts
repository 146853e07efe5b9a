// Mailing-list routes (API.md 4.1 without contacts): shapes, types, paging, deletion and counts.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { insertContacts, type TestAccount } from '../../helpers/factories.js'

const WIRE_DATE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/

for (const dialect of DIALECTS) {
  describe(`mailing lists on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    const create = async (bookName: string) => {
      const res = await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName } })
      assert.equal(res.statusCode, 200, res.body)
      return res.json<{ id: number }>().id
    }
    const get = async (id: number) => (await t.call(account, { method: 'GET', url: `/addressbooks/${id}` })).json<Record<string, unknown>[]>()

    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account()
    })
    after(() => t.close())

    it('creates a list and returns every field of API.md 2.1 with the right types', async () => {
      const id = await create('Newsletter')
      const [book] = await get(id)
      assert.deepEqual(
        { ...book, creationdate: undefined },
        {
          id,
          name: 'Newsletter',
          all_email_qty: 0,
          active_email_qty: 0,
          inactive_email_qty: 0,
          active_phones_quantity: 0,
          exc_phones_quantity: 0,
          creationdate: undefined,
          status: 0,
          status_explain: 'Active',
        },
      )
      assert.match(String(book?.creationdate), WIRE_DATE)
      assert.equal(book?.creationdate, new Date(t.clock.now).toISOString().slice(0, 19).replace('T', ' '))
    })

    it('refuses a duplicate name with the published error, but allows it again after deletion', async () => {
      await create('Dup')
      const again = await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Dup' } })
      assert.equal(again.statusCode, 422)
      assert.deepEqual(again.json(), { error_code: 203, message: 'Name already in use' })
      const [first] = (await t.call(account, { method: 'GET', url: '/addressbooks' })).json<{ id: number; name: string }[]>().filter((b) => b.name === 'Dup')
      await t.call(account, { method: 'DELETE', url: `/addressbooks/${first?.id}` })
      assert.ok((await create('Dup')) > (first?.id ?? 0))
    })

    it('renames a list, refusing a name already in use and unknown ids', async () => {
      const id = await create('Before')
      await create('Taken')
      const renamed = await t.call(account, { method: 'PUT', url: `/addressbooks/${id}`, payload: { name: 'After' } })
      assert.deepEqual(renamed.json(), { result: true })
      assert.equal((await get(id))[0]?.name, 'After')
      const clash = await t.call(account, { method: 'PUT', url: `/addressbooks/${id}`, payload: { name: 'Taken' } })
      assert.deepEqual(clash.json(), { error_code: 203, message: 'Name already in use' })
      const missing = await t.call(account, { method: 'PUT', url: '/addressbooks/987654', payload: { name: 'x' } })
      assert.equal(missing.statusCode, 404)
      assert.deepEqual(missing.json(), { error_code: 213, message: 'Book not found' })
      const noName = await t.call(account, { method: 'PUT', url: `/addressbooks/${id}`, payload: {} })
      assert.deepEqual(noName.json(), { error_code: 422, message: 'Argument name missing' })
    })

    it('pages the lists with limit and offset, oldest first, with new_phones_quantity in each item', async () => {
      const other = await t.account()
      const ids = []
      for (let i = 0; i < 5; i++) {
        const res = await t.call(other, { method: 'POST', url: '/addressbooks', payload: { bookName: `page ${i}` } })
        ids.push(res.json<{ id: number }>().id)
      }
      const page = await t.call(other, { method: 'GET', url: '/addressbooks?limit=2&offset=1' })
      const items = page.json<{ id: number; new_phones_quantity: unknown }[]>()
      assert.deepEqual(items.map((b) => b.id), ids.slice(1, 3))
      assert.ok(items.every((b) => b.new_phones_quantity === 0))
      const beyond = await t.call(other, { method: 'GET', url: '/addressbooks?offset=50' })
      assert.deepEqual(beyond.json(), [])
    })

    it('marks a deleted list with status 1: gone from the list, still readable by id, otherwise not found', async () => {
      const id = await create('Doomed')
      const res = await t.call(account, { method: 'DELETE', url: `/addressbooks/${id}` })
      assert.deepEqual(res.json(), { result: true })
      const listed = (await t.call(account, { method: 'GET', url: '/addressbooks' })).json<{ id: number }[]>()
      assert.ok(!listed.some((b) => b.id === id))
      const [book] = await get(id)
      assert.equal(book?.status, 1)
      assert.equal(book?.status_explain, 'Marked as deleted')
      for (const [method, url] of [['DELETE', ''], ['GET', '/variables'], ['GET', '/emails/total'], ['GET', '/cost'], ['GET', '/campaigns']] as const) {
        const again = await t.call(account, { method, url: `/addressbooks/${id}${url}` })
        assert.equal(again.statusCode, 404, `${method} ${url}`)
      }
    })

    it('shows the same counts in a list\'s record and in its row of the list of lists, blacklisted numbers of every status among them', async () => {
      const id = await create('Both ways')
      const bystander = await create('Bystander')
      await insertContacts(t.deps, [
        { accountId: account.id, bookId: id, email: 'a@x.com', status: 1, phone: '380631234567' },
        { accountId: account.id, bookId: id, email: 'b@x.com', status: 0 },
        { accountId: account.id, bookId: id, email: 'c@x.com', status: 9 },
        { accountId: account.id, bookId: bystander, email: 'a@x.com', status: 1 },
      ])
      const numbers = [['380671234561', 1], ['380671234562', 1], ['380671234563', 0], ['380671234564', 0], ['380671234567', 0], ['380671234565', 2], ['380671234566', 4]] as const
      await t.deps.db
        .insertInto('list_phones')
        .values(numbers.map(([phone, status]) => ({ account_id: account.id, address_book_id: id, phone, status, created_at: t.clock.now, updated_at: t.clock.now })))
        .execute()
      // One Active, two New and one already excluded number blacklisted; another account's blacklist counts for nothing.
      const blacklist = (accountId: number, phone: string) => ({ account_id: accountId, phone, created_at: t.clock.now })
      const other = await t.account('other')
      await t.deps.db
        .insertInto('sms_blacklist')
        .values([blacklist(account.id, '380671234561'), blacklist(account.id, '380671234563'), blacklist(account.id, '380671234564'), blacklist(account.id, '380671234565'), blacklist(other.id, '380671234562')])
        .execute()
      const [one] = await get(id)
      const listed = (await t.call(account, { method: 'GET', url: '/addressbooks' })).json<Record<string, unknown>[]>().find((b) => b.id === id)
      const counts = { all_email_qty: 3, active_email_qty: 1, inactive_email_qty: 2, active_phones_quantity: 1, exc_phones_quantity: 5 }
      assert.deepEqual(one, { ...one, ...counts })
      assert.deepEqual(listed, { ...one, new_phones_quantity: 1 })
    })

    it('lists the built-in variables email and name plus the list\'s own', async () => {
      const id = await create('With variables')
      await t.deps.db.insertInto('address_book_variables').values({ address_book_id: id, name: 'age', type: 'number', created_at: t.clock.now }).execute()
      const res = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/variables` })
      assert.deepEqual(res.json(), [
        { name: 'email', type: 'string' },
        { name: 'name', type: 'string' },
        { name: 'age', type: 'number' },
      ])
    })

    it('computes the counts, total and cost from the contacts of the list, and the phone counts from its numbers', async () => {
      const id = await create('Counted')
      await insertContacts(t.deps, [
        { accountId: account.id, bookId: id, email: 'a@x.com', status: 1, phone: '380631234567' },
        { accountId: account.id, bookId: id, email: 'b@x.com', status: 1 },
        { accountId: account.id, bookId: id, email: 'c@x.com', status: 4, phone: '380631234568' },
        { accountId: account.id, bookId: id, email: 'd@x.com', status: 0, phone: '380631234569' },
      ])
      // The list's numbers (API.md 4.11): one of each status the phone counts tell apart.
      const numbers = [['380501234561', 1], ['380501234562', 1], ['380501234563', 0], ['380501234564', 2]] as const
      await t.deps.db
        .insertInto('list_phones')
        .values(numbers.map(([phone, status]) => ({ account_id: account.id, address_book_id: id, phone, status, created_at: t.clock.now, updated_at: t.clock.now })))
        .execute()
      const [book] = await get(id)
      assert.equal(book?.all_email_qty, 4)
      assert.equal(book?.active_email_qty, 2)
      assert.equal(book?.inactive_email_qty, 2)
      assert.equal(book?.active_phones_quantity, 2)
      assert.equal(book?.exc_phones_quantity, 1)
      const listed = (await t.call(account, { method: 'GET', url: '/addressbooks' })).json<{ id: number; new_phones_quantity: number }[]>()
      assert.equal(listed.find((b) => b.id === id)?.new_phones_quantity, 1)
      assert.deepEqual((await t.call(account, { method: 'GET', url: `/addressbooks/${id}/emails/total` })).json(), { total: 4 })
      assert.deepEqual((await t.call(account, { method: 'GET', url: `/addressbooks/${id}/emails/total?active=1` })).json(), { total: 2 })

      const cost = (await t.call(account, { method: 'GET', url: `/addressbooks/${id}/cost` })).json<Record<string, unknown>>()
      // 2 active contacts at 0.0044 USD each against a balance of 100 USD (the factory's credit).
      assert.deepEqual(cost, {
        cur: 'USD',
        sent_emails_qty: 2,
        overdraftAllEmailsPrice: 0.0088,
        addressesDeltaFromBalance: 22727 - 2,
        addressesDeltaFromTariff: -2,
        max_emails_per_task: 22727,
        result: true,
      })
    })

    it('answers the cost of an empty list with the published error 211', async () => {
      const id = await create('Empty')
      const res = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/cost` })
      assert.equal(res.statusCode, 422)
      assert.deepEqual(res.json(), { error_code: 211, message: 'Addressbook is empty' })
    })

    it('lists no campaigns for a list that was never sent to', async () => {
      const id = await create('No campaigns')
      const res = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/campaigns?limit=10&offset=0` })
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json(), [])
    })
  })
}
