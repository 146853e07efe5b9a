// The bulk upsert of contacts (PostgreSQL: COPY into a per-connection staging table, then one upsert, or for a
// small batch one INSERT of arrays; SQLite: prepared inserts): a batch that fails leaves nothing behind and the
// connection serves the next one, and batches never see each other's rows, in one transaction or on one pooled
// connection after another. On PostgreSQL each path is forced in turn (upsertPaths).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Kysely } from 'kysely'
import { DIALECTS, createTestDatabase, type TestDatabase } from '../../helpers/databases.js'
import { contactColumns, upsertContacts, upsertPaths, type UpsertBatch } from '../../../src/storage/repos/contact-upserts.js'
import * as books from '../../../src/storage/repos/address-books.js'
import type { Database } from '../../../src/storage/tables.js'

const PATHS = { plain: Infinity, bulk: 0 }
const DEFAULT_PLAIN_MAX = upsertPaths.plainMax

for (const dialect of DIALECTS) for (const [path, plainMax] of Object.entries(dialect === 'postgres' ? PATHS : { one: DEFAULT_PLAIN_MAX })) {
  describe(`bulk contact upserts on ${dialect}, ${path} path`, () => {
    let database: TestDatabase
    let db: Kysely<Database>
    let accountId: number
    before(async () => {
      upsertPaths.plainMax = plainMax
      database = await createTestDatabase(dialect)
      db = database.storage.db
      const now = Date.now()
      const account = await db
        .insertInto('accounts')
        .values({ name: 'a', client_id: 'upserts', client_secret_hash: 'x', currency: 'USD', plan: 'pro', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow()
      accountId = Number(account.id)
    })
    after(async () => {
      upsertPaths.plainMax = DEFAULT_PLAIN_MAX
      await database.drop()
    })

    const batch = (bookId: number, emails: string[], variables = '{}'): UpsertBatch => ({
      accountId,
      bookId,
      status: 1,
      source: 'import',
      now: Date.now(),
      contacts: contactColumns(emails.map((email) => ({ email, phone: null, variables }))),
    })
    const stored = async (bookId: number) =>
      (await db.selectFrom('contacts').select(['email', 'variables']).where('address_book_id', '=', bookId).orderBy('id').execute()).map((r) => `${r.email} ${JSON.stringify(JSON.parse(r.variables))}`)
    const counted = async (bookId: number) =>
      Number((await db.selectFrom('contact_counts').select((eb) => eb.fn.sum<number>('count').as('n')).where('address_book_id', '=', bookId).executeTakeFirst())?.n ?? 0)

    it('rolls a failing batch back whole, and the next batch on the same connections stores only its own rows', async () => {
      const bookId = await books.createBook(db, { accountId, name: 'Failing', now: Date.now() })
      const failing = batch(bookId, ['a@example.com', 'b@example.com', 'c@example.com'])
      // The last row breaks a NOT NULL column after the others were sent.
      failing.contacts = { ...failing.contacts, variables: ['{}', '{}', null as unknown as string] }
      await assert.rejects(upsertContacts(db, failing))
      assert.deepEqual(await stored(bookId), [])
      assert.equal(await counted(bookId), 0)
      // More batches than the pool has connections: every one of them is reused.
      for (let i = 0; i < 12; i++) {
        const rows = await upsertContacts(db, batch(bookId, [`n${i}@example.com`]))
        assert.equal(rows.added, 1)
      }
      assert.equal((await stored(bookId)).length, 12)
      assert.equal(await counted(bookId), 12)
    })

    it('keeps two batches of one transaction apart, and reports each row at its position', async () => {
      const bookId = await books.createBook(db, { accountId, name: 'Twice', now: Date.now() })
      await upsertContacts(db, batch(bookId, ['old@example.com'], '{"a":1}'))
      const [first, second] = await db.transaction().execute(async (tx) => [
        await upsertContacts(tx, batch(bookId, ['x@example.com', 'old@example.com'], '{"b":2}')),
        await upsertContacts(tx, batch(bookId, ['y@example.com'])),
      ])
      assert.deepEqual(first!.inserted, [true, false])
      assert.equal(first!.added, 1)
      assert.deepEqual(second!.inserted, [true])
      assert.deepEqual(await stored(bookId), ['old@example.com {"a":1,"b":2}', 'x@example.com {"b":2}', 'y@example.com {}'])
      assert.equal(await counted(bookId), 3)
    })
  })
}
