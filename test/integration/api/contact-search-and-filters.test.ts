// The contacts page's queries on a big list (issue 21): the "Not active" filter reads migration 0021's partial index
// (it walked the whole list to find nobody before), and the search by the start of an address (`email_prefix`, a
// Tidings extension) finds addresses in any case, takes `_` and `%` as plain characters, pages by keyset with
// `after_email`, and is one range scan of contacts_book_email_folded. Which index a query uses is read from the
// database's own plan, asked for the query the repository runs.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql, type Compilable, type Kysely } from 'kysely'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import type { Database } from '../../../src/storage/tables.js'
import { contactIdsQuery } from '../../../src/storage/repos/contacts.js'
import { prefixEnd, searchContactsQuery } from '../../../src/storage/repos/contact-search.js'

type Listed = { email: string; status: number }

/** The database's plan of a query, as text. */
async function planOf(db: Kysely<Database>, dialect: string, query: Compilable): Promise<string> {
  const { sql: text, parameters } = query.compile()
  const explain = dialect === 'postgres' ? `explain ${text}` : `explain query plan ${text}`
  const { rows } = await db.executeQuery({ sql: explain, parameters, query: { kind: 'RawNode' } } as never)
  return (rows as Record<string, unknown>[]).map((row) => String(row['QUERY PLAN'] ?? row['detail'])).join('\n')
}

for (const dialect of DIALECTS) {
  describe(`contact filters and the search by the start of an address on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    let bookId: number
    const list = async (query: string, who = account) => {
      const res = await t.call(who, { method: 'GET', url: `/addressbooks/${bookId}/emails?${query}` })
      assert.equal(res.statusCode, 200, res.body)
      return res.json<Listed[]>().map((c) => c.email)
    }

    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account()
      bookId = (await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Big enough' } })).json<{ id: number }>().id
      // 600 ordinary addresses, so that a walk of the list and a seek differ in the plan, and the search's cases.
      const emails = [
        ...Array.from({ length: 600 }, (_, i) => `reader${String(i).padStart(3, '0')}@example.com`),
        'Anna.Smith@example.com',
        'anna.bell@example.com',
        'a_b@example.com',
        'axb@example.com',
        'a%c@example.com',
        'abc@example.com',
        'x@example.com',
        'x_y@example.com',
        'x[y@example.com',
      ]
      for (let i = 0; i < emails.length; i += 100) {
        const res = await t.call(account, { method: 'POST', url: `/addressbooks/${bookId}/emails`, payload: { emails: emails.slice(i, i + 100) } })
        assert.equal(res.statusCode, 200, res.body)
      }
      await t.call(account, { method: 'POST', url: `/addressbooks/${bookId}/emails/unsubscribe`, payload: { emails: ['reader007@example.com', 'reader500@example.com'] } })
      await sql`analyze`.execute(t.deps.db)
    })
    after(() => t.close())

    it('"Not active" answers the inactive contacts from the partial index, without walking the list', async () => {
      assert.deepEqual(await list('not_active=true'), ['reader007@example.com', 'reader500@example.com'])
      assert.deepEqual(await list('not_active=true&offset=1'), ['reader500@example.com'])
      assert.equal((await list('active=true&limit=100')).length, 100)
      const plan = await planOf(t.deps.db, dialect, contactIdsQuery(t.deps.db, { bookId, statuses: 'inactive', order: 'asc' }, { limit: 50, offset: 0 }))
      assert.match(plan, /contacts_book_inactive/, plan)
    })

    it('finds by the start of the address in any case, in address order, `_` and `%` being plain characters', async () => {
      assert.deepEqual(await list('email_prefix=ANNA'), ['anna.bell@example.com', 'Anna.Smith@example.com'])
      assert.deepEqual(await list('email_prefix=a_b'), ['a_b@example.com'])
      assert.deepEqual(await list('email_prefix=a%25'), ['a%c@example.com'])
      // "x@" ends before "x[": no letter-folding of the range's end takes "x_y" or "x[y" in.
      assert.deepEqual(await list('email_prefix=x%40'), ['x@example.com'])
      assert.deepEqual(await list('email_prefix=nobody'), [])
      assert.equal((await list('email_prefix=reader&limit=100')).length, 100)
    })

    it('pages a search by keyset with after_email, ending where the matches end', async () => {
      const pages: string[][] = []
      let afterEmail: string | undefined
      for (;;) {
        const page = await list(`email_prefix=reader4&limit=40${afterEmail ? `&after_email=${encodeURIComponent(afterEmail)}` : ''}`)
        if (page.length === 0) break
        pages.push(page)
        afterEmail = page.at(-1)
      }
      const all = pages.flat()
      assert.equal(all.length, 100)
      assert.deepEqual(all, Array.from({ length: 100 }, (_, i) => `reader4${String(i).padStart(2, '0')}@example.com`))
    })

    it('searches with one range scan of the folded-address index, on the first page and deep ones', async () => {
      for (const after of [undefined, { email: 'reader450@example.com', id: 451 }]) {
        const plan = await planOf(t.deps.db, dialect, searchContactsQuery(t.deps.db, { bookId, prefix: 'reader4', after }, { limit: 50, offset: 0 }))
        assert.match(plan, /contacts_book_email_folded/, plan)
        assert.doesNotMatch(plan, /TEMP B-TREE|Sort/i, plan)
        // The seek starts at the page's start (a deep page does not walk the matches before it), and ends at the range's end.
        assert.match(plan, dialect === 'postgres' ? /Index Cond: .*(>=|ROW\(.*\) >).* < / : /email>\? AND email<\?/, plan)
      }
    })

    it('refuses what a search cannot be combined with, and a page of another account gets 404', async () => {
      for (const query of ['email_prefix=a&active=true', 'email_prefix=a&not_active=true', 'email_prefix=a&order=desc', 'after_email=a%40example.com', 'email_prefix=b&after_email=a%40example.com']) {
        const res = await t.call(account, { method: 'GET', url: `/addressbooks/${bookId}/emails?${query}` })
        assert.equal(res.statusCode, 422, `${query}: ${res.body}`)
        assert.ok(res.json<{ message: string }>().message, query)
      }
      const other = await t.account('Other')
      const res = await t.call(other, { method: 'GET', url: `/addressbooks/${bookId}/emails?email_prefix=reader` })
      assert.equal(res.statusCode, 404, res.body)
    })
  })
}

describe('the end of a prefix range', () => {
  it('is the last character plus one, skipping A–Z and surrogates, and none after the last code point', () => {
    assert.equal(prefixEnd('ab'), 'ac')
    assert.equal(prefixEnd('x@'), 'x[')
    assert.equal(prefixEnd('a\ud7ff'), 'a\ue000')
    assert.equal(prefixEnd('a\u{10ffff}'), 'b')
    assert.equal(prefixEnd('\u{10ffff}'), undefined)
  })
})
