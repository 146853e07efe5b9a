// The real npm SDK (`sendpulse-api` 1.1.7), unchanged, adding, reading and removing contacts: it sends the
// lists as PHP serialize() strings and GET parameters as JSON bodies.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { call, startSdkHarness, type SdkHarness } from '../../helpers/npm-sdk.js'

for (const dialect of DIALECTS) {
  describe(`the npm SDK with contacts on ${dialect}`, () => {
    let h: SdkHarness
    let bookId: number

    before(async () => {
      h = await startSdkHarness(dialect)
      await h.init()
      bookId = (await call<{ id: number }>(h.sdk.createAddressBook, 'SDK contacts')).id
    })
    after(() => h?.close())

    it('adds contacts with addEmails (a serialize() string), variables in any script included', async () => {
      const answer = await call(h.sdk.addEmails, bookId, [
        { email: 'anna@example.com', variables: { name: 'Анна', age: 33 } },
        { email: 'bob@example.com', variables: { name: 'Bob "the" builder' } },
        'carl@example.com',
      ])
      assert.deepEqual(answer, { result: true })
      assert.equal(h.paths().at(-1), `POST /addressbooks/${bookId}/emails 200`)
      assert.match(h.exchanges.at(-1)?.body ?? '', /^\{"result":true\}$/)
    })

    it('reads them with getEmailsFromBook: variables as a map, phone a number or null', async () => {
      const contacts = await call<Record<string, unknown>[]>(h.sdk.getEmailsFromBook, bookId)
      assert.deepEqual(contacts, [
        { email: 'anna@example.com', status: 1, status_explain: 'Active', phone: null, variables: { name: 'Анна', age: 33 } },
        { email: 'bob@example.com', status: 1, status_explain: 'Active', phone: null, variables: { name: 'Bob "the" builder' } },
        { email: 'carl@example.com', status: 1, status_explain: 'Active', phone: null, variables: {} },
      ])
      assert.ok(!/[^\x00-\x7f]/.test(h.exchanges.at(-1)?.body ?? ''), 'non-ASCII travels as \\u escapes')
    })

    it('reads one contact with getEmailInfo: abook_id a string, variables [{name, type, value}]', async () => {
      const info = await call(h.sdk.getEmailInfo, bookId, 'anna@example.com')
      assert.deepEqual(info, {
        email: 'anna@example.com',
        abook_id: String(bookId),
        phone: '',
        status: 1,
        status_explain: 'Active',
        variables: [
          { name: 'name', type: 'string', value: 'Анна' },
          { name: 'age', type: 'number', value: '33' },
        ],
      })
    })

    it('changes variables with updateEmailVariables and finds the address everywhere with getEmailGlobalInfo', async () => {
      const changed = await call(h.sdk.updateEmailVariables, bookId, 'bob@example.com', [{ name: 'age', value: 40 }])
      assert.deepEqual(changed, { result: true })
      const global = await call<{ book_id: number; variables: unknown[] }[]>(h.sdk.getEmailGlobalInfo, 'bob@example.com')
      assert.deepEqual(global.map((g) => g.book_id), [bookId])
      assert.deepEqual(global[0]?.variables, [
        { name: 'name', type: 'string', value: 'Bob "the" builder' },
        { name: 'age', type: 'number', value: '40' },
      ])
    })

    it('removes contacts with removeEmails (a serialize() string) and from every list with removeEmailFromAllBooks', async () => {
      assert.deepEqual(await call(h.sdk.removeEmails, bookId, ['anna@example.com', 'carl@example.com']), { result: true })
      assert.deepEqual((await call<{ email: string }[]>(h.sdk.getEmailsFromBook, bookId)).map((c) => c.email), ['bob@example.com'])
      assert.deepEqual(await call(h.sdk.removeEmailFromAllBooks, 'bob@example.com'), { result: true })
      assert.deepEqual(await call(h.sdk.getEmailsFromBook, bookId), [])
    })

    it('passes a 404 error body to the callback for an unknown contact', async () => {
      const answer = await call(h.sdk.getEmailInfo, bookId, 'nobody@example.com')
      assert.deepEqual(answer, { error_code: 502, message: 'Email address not found' })
    })
  })
}
