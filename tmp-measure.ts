import { performance } from 'node:perf_hooks'
import { sql } from 'kysely'
import { startTestApp } from './test/helpers/app.js'
import { listContacts } from './src/storage/repos/contacts.js'
import { searchContacts } from './src/storage/repos/contact-search.js'

const N = 1_000_000
for (const dialect of ['sqlite', 'postgres'] as const) {
  const t = await startTestApp(dialect)
  const account = await t.account()
  const bookId = (await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Big' } })).json<{ id: number }>().id
  const db = t.deps.db
  let t0 = performance.now()
  if (dialect === 'postgres') {
    await sql`insert into contacts (account_id, address_book_id, email, status, variables, source, created_at, updated_at)
      select ${account.id}, ${bookId}, 'c' || g || '.name@mail' || (g % 50) || '.example.com', 1, '{}', 'api', 0, 0 from generate_series(0, ${N - 1}) g`.execute(db)
  } else {
    await sql`with recursive g(i) as (select 0 union all select i + 1 from g where i < ${N - 1})
      insert into contacts (account_id, address_book_id, email, status, variables, source, created_at, updated_at)
      select ${account.id}, ${bookId}, 'c' || i || '.name@mail' || (i % 50) || '.example.com', 1, '{}', 'api', 0, 0 from g`.execute(db)
  }
  await sql`analyze`.execute(db)
  console.log(`${dialect}: ${N} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  const time = async (what: string, work: () => Promise<unknown[]>) => {
    const times: number[] = []
    let n = 0
    for (let i = 0; i < 5; i++) {
      const s = performance.now()
      n = (await work()).length
      times.push(performance.now() - s)
    }
    times.sort((a, b) => a - b)
    console.log(`${dialect}: ${what}: median ${times[2]!.toFixed(1)} ms (${n} rows)`)
  }
  const page = { limit: 50, offset: 0 }
  const measure = async (label: string) => {
    await time(`${label} Not active, first page`, () => listContacts(db, { bookId, statuses: 'inactive', order: 'asc' }, page))
    await time(`${label} Active, first page`, () => listContacts(db, { bookId, statuses: 'active', order: 'asc' }, page))
    await time(`${label} All, first page`, () => listContacts(db, { bookId, statuses: 'all', order: 'asc' }, page))
    await time(`${label} All, offset 500,000 (no remembered position)`, () => listContacts(db, { bookId, statuses: 'all', order: 'asc' }, { limit: 50, offset: 500_000 }))
    await time(`${label} All, after id (keyset)`, () => listContacts(db, { bookId, statuses: 'all', order: 'asc' }, { limit: 50, offset: 500_000, afterId: 500_000 }))
    await time(`${label} search "C12345"`, () => searchContacts(db, { bookId, prefix: 'C12345' }, page))
    await time(`${label} search "c1", page after c150000`, () => searchContacts(db, { bookId, prefix: 'c1', after: { email: 'c150000.name@mail0.example.com', id: 150001 } }, page))
  }
  await measure('with 0021:')
  t0 = performance.now()
  await sql`drop index contacts_book_inactive`.execute(db)
  await sql`drop index contacts_book_email_folded`.execute(db)
  await sql`analyze`.execute(db)
  await measure('without 0021 (before):')
  t0 = performance.now()
  await sql`create index contacts_book_inactive on contacts (address_book_id, id) where status not in (0, 1)`.execute(db)
  console.log(`${dialect}: creating contacts_book_inactive on 1M rows: ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  t0 = performance.now()
  if (dialect === 'postgres') await sql`create index contacts_book_email_folded on contacts (address_book_id, (lower(email) collate "C"), id)`.execute(db)
  else await sql`create index contacts_book_email_folded on contacts (address_book_id, email collate nocase)`.execute(db)
  console.log(`${dialect}: creating contacts_book_email_folded on 1M rows: ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  await t.close()
}
process.exit(0)
