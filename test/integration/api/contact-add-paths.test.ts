// The two paths of an add (storage/repos/contact-upserts.ts upsertPaths: one INSERT for a small batch, COPY through
// a staging table for a large one) leave the same rows and events and give the same answers: the same calls run
// once with every batch forced down each path, into two databases at the same clock, and everything is compared.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { snapshotAllTables } from '../../helpers/table-snapshot.js'
import { upsertPaths } from '../../../src/storage/repos/contact-upserts.js'

// Rows made from random secrets (credentials, the webhook's signing key) or at the migration's own time (the
// system templates): not what an add writes.
const UNCOMPARED_TABLES = new Set(['accounts', 'access_tokens', 'api_keys', 'webhook_endpoints', 'webhooks', 'templates'])
const START = Date.UTC(2026, 10, 24, 12)
const b64 = (text: string) => Buffer.from(text).toString('base64')

/** Every call of the scenario with its answer, then every table's rows. */
async function runScenario(t: TestApp): Promise<{ answers: unknown[]; tables: Record<string, string[]> }> {
  t.clock.now = START
  const account = await t.account()
  const answers: unknown[] = []
  const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    t.clock.advance(1000)
    const res = await t.call(account, { method, url, ...(payload ? { payload } : {}) })
    answers.push([method, url, res.statusCode, res.body])
    return res
  }
  await call('POST', '/v2/email-service/webhook', { url: 'https://hooks.example/a', actions: ['new_emails'] })
  const bookId = (await call('POST', '/addressbooks', { bookName: 'Paths' })).json<{ id: number }>().id
  const emails = `/addressbooks/${bookId}/emails`
  await call('POST', '/blacklist', { emails: b64('black@example.com') })
  // New contacts, with and without variables and a phone.
  await call('POST', emails, {
    emails: ['plain@example.com', { email: 'kept@example.com', variables: { name: 'Kept', age: 30, Phone: '+380 63 123 4567' } }, { email: 'later@example.com', variables: { name: 'Later' } }],
  })
  await call('POST', `${emails}/unsubscribe`, { emails: ['plain@example.com'] })
  // Existing ones (one unsubscribed: it stays so) with variables merged and a first phone, new ones, a duplicate
  // in two spellings, a blacklisted address and an invalid one.
  await call('POST', emails, {
    emails: [
      { email: 'plain@example.com', variables: { name: 'Back' } },
      { email: 'kept@example.com', variables: { age: 31, city: 'Kyiv' } },
      { email: 'later@example.com', variables: { Phone: '+44 7911 123456' } },
      { email: 'twice@example.com', variables: { n: 1 } },
      { email: 'Twice@Example.com', variables: { n: 2 } },
      'black@example.com',
      'not an address',
      { email: 'fresh@example.com', variables: { name: 'Fresh', Phone: '+1 202 555 0143' } },
      // What an array literal must quote: quotes, braces, commas, backslashes, a bare NULL, spaces, non-ASCII.
      { email: 'odd+tag@example.com', variables: { note: 'a "quoted", {braced} \\ back\\slash, ünï', word: 'NULL', blank: ' ' } },
    ],
  })
  // A larger small batch: half of it already there.
  await call('POST', emails, { emails: Array.from({ length: 40 }, (_, i) => ({ email: `many${i % 20 === 0 ? i : i % 20}@example.com`, variables: { i } })) })
  await call('POST', emails, { emails: Array.from({ length: 40 }, (_, i) => ({ email: `many${i}@example.com`, variables: { round: 2 } })) })
  await call('GET', `${emails}?limit=100`)
  await call('GET', `/addressbooks/${bookId}`)
  const snapshot = await snapshotAllTables(t.deps)
  const tables = Object.fromEntries([...snapshot].filter(([name]) => !UNCOMPARED_TABLES.has(name)))
  return { answers, tables }
}

for (const dialect of DIALECTS) {
  describe(`the small and the bulk path of an add on ${dialect}`, () => {
    let plain: TestApp
    let bulk: TestApp
    const plainMax = upsertPaths.plainMax
    before(async () => {
      plain = await startTestApp(dialect)
      bulk = await startTestApp(dialect)
    })
    after(async () => {
      upsertPaths.plainMax = plainMax
      await plain.close()
      await bulk.close()
    })

    it('store the same rows and events and give the same answers', async () => {
      upsertPaths.plainMax = Infinity
      const small = await runScenario(plain)
      upsertPaths.plainMax = 0
      const large = await runScenario(bulk)
      assert.ok(small.tables.events!.length >= 10, 'the new_emails events are recorded')
      assert.ok(small.tables.contacts!.some((row) => row.includes('odd+tag@example.com') && row.includes('{braced}')), 'the odd values are stored')
      assert.deepEqual(small.answers, large.answers)
      for (const table of Object.keys(small.tables)) assert.deepEqual(small.tables[table], large.tables[table], table)
    })
  })
}
