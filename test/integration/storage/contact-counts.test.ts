// The per-list counts kept by the contact repository always equal a count of the contact rows, after every
// kind of change the repository makes, on both databases.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { DIALECTS, createTestDatabase, type TestDatabase } from '../../helpers/databases.js'
import * as contacts from '../../../src/storage/repos/contacts.js'
import { contactColumns, upsertContacts } from '../../../src/storage/repos/contact-upserts.js'
import * as books from '../../../src/storage/repos/address-books.js'
import type { Database } from '../../../src/storage/tables.js'
import type { Kysely } from 'kysely'

async function countedFromRows(db: Kysely<Database>) {
  const { rows } = await sql<{ address_book_id: number; status: number; with_phone: number; n: number }>`
    select address_book_id, status, case when phone is null then 0 else 1 end as with_phone, count(*) as n
    from contacts group by address_book_id, status, case when phone is null then 0 else 1 end`.execute(db)
  return rows.map((r) => `${r.address_book_id}/${r.status}/${r.with_phone}=${r.n}`).sort()
}

async function kept(db: Kysely<Database>) {
  const rows = await db.selectFrom('contact_counts').selectAll().where('count', '<>', 0).execute()
  return rows.map((r) => `${r.address_book_id}/${r.status}/${r.with_phone}=${r.count}`).sort()
}

for (const dialect of DIALECTS) {
  describe(`contact counts on ${dialect}`, () => {
    let database: TestDatabase
    let db: Kysely<Database>
    before(async () => {
      database = await createTestDatabase(dialect)
      db = database.storage.db
    })
    after(() => database.drop())

    it('follow adds, re-adds with phones, status changes, confirmations, activations, phones and deletions', async () => {
      const now = Date.now()
      const account = await db
        .insertInto('accounts')
        .values({ name: 'a', client_id: 'counts', client_secret_hash: 'x', currency: 'USD', plan: 'pro', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow()
      const accountId = Number(account.id)
      const [a, b] = [await books.createBook(db, { accountId, name: 'A', now }), await books.createBook(db, { accountId, name: 'B', now })]
      const input = (i: number, phone: string | null = null) => ({ email: `c${i}@example.com`, phone, variables: '{}' })
      const check = async (step: string) => assert.deepEqual(await kept(db), await countedFromRows(db), step)

      await upsertContacts(db, { accountId, bookId: a, status: 1, source: 'api', now, contacts: contactColumns([0, 1, 2, 3, 4, 5].map((i) => input(i, i % 2 ? '380631234567' : null))) })
      await check('added')
      await upsertContacts(db, { accountId, bookId: a, status: 1, source: 'api', now, contacts: contactColumns([input(0, '447911123456'), input(1, '447911123456'), input(6)]) })
      await check('re-added, two getting a phone (one already had one), one new')
      await upsertContacts(db, { accountId, bookId: b, status: 0, source: 'api', now, contacts: contactColumns([input(0), input(7), input(8, '380631234567')]) })
      await upsertContacts(db, { accountId, bookId: b, status: 2, source: 'api', now, contacts: contactColumns([input(9)]) })
      await check('second list, new and awaiting confirmation')
      assert.equal((await contacts.setContactStatus(db, { bookId: a, emails: ['c2@example.com', 'c3@example.com', 'c3@example.com'], status: 4, now })).length, 2)
      assert.equal((await contacts.setContactStatus(db, { bookId: a, emails: ['c2@example.com'], status: 4, now, onlyFrom: [1] })).length, 0)
      await check('unsubscribed')
      const waiting = await contacts.findContact(db, b, 'c9@example.com')
      assert.equal(await contacts.confirmContact(db, waiting!.id, now), true)
      assert.equal(await contacts.confirmContact(db, waiting!.id, now), false)
      await check('confirmed')
      assert.equal(await contacts.activateNewContacts(db, { accountId, bookId: b }, now), 3)
      await check('activated')
      const phoneless = await contacts.findContact(db, a, 'c4@example.com')
      await contacts.setPhone(db, phoneless!.id, '380631234567', now)
      await contacts.setPhone(db, phoneless!.id, '447911123456', now)
      await check('phone set, then changed')
      await db.transaction().execute(async (tx) => {
        await contacts.deleteContacts(tx, a, ['c5@example.com', 'c6@example.com', 'nobody@example.com'])
        assert.equal((await contacts.deleteFromAccount(tx, accountId, 'c0@example.com')).length, 2)
      })
      await check('deleted inside a caller transaction')
      const listed = await books.countContactsByBook(db, [a, b])
      assert.deepEqual(listed.get(a), { all: 4, active: 2 })
      assert.deepEqual(listed.get(b), { all: 3, active: 3 })
    })

    it('roll back with the change that caused them', async () => {
      const before = await kept(db)
      const book = Number((await db.selectFrom('address_books').select('id').orderBy('id').executeTakeFirstOrThrow()).id)
      const accountId = Number((await db.selectFrom('accounts').select('id').executeTakeFirstOrThrow()).id)
      await assert.rejects(
        db.transaction().execute(async (tx) => {
          await upsertContacts(tx, { accountId, bookId: book, status: 1, source: 'api', now: Date.now(), contacts: contactColumns([{ email: 'gone@example.com', phone: null, variables: '{}' }]) })
          throw new Error('abort')
        }),
        /abort/,
      )
      assert.deepEqual(await kept(db), before)
    })
  })
}
