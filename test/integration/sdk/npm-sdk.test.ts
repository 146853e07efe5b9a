// The real npm SDK (`sendpulse-api` 1.1.7), unchanged, against a listening server: tokens and mailing lists.
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { DIALECTS } from '../../helpers/databases.js'
import type { TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { call, loadSdk, startSdkHarness, tokenFile, type Callback, type Exchange, type SdkHarness, type SendpulseSdk } from '../../helpers/npm-sdk.js'

type Book = Record<string, unknown> & { id: number; name: string }

const BOOK_FIELDS = [
  'id',
  'name',
  'all_email_qty',
  'active_email_qty',
  'inactive_email_qty',
  'active_phones_quantity',
  'exc_phones_quantity',
  'creationdate',
  'status',
  'status_explain',
]
/** API.md 2.1: new_phones_quantity is in the list response only. */
const LIST_FIELDS = [...BOOK_FIELDS, 'new_phones_quantity']
const INT_FIELDS = ['id', 'all_email_qty', 'active_email_qty', 'inactive_email_qty', 'active_phones_quantity', 'exc_phones_quantity', 'status']

function assertActiveBook(book: Book, fields: string[]): void {
  assert.deepEqual(Object.keys(book).sort(), [...fields].sort())
  for (const field of fields.filter((f) => INT_FIELDS.includes(f) || f === 'new_phones_quantity')) {
    assert.ok(Number.isInteger(book[field]), `${field} is an integer, got ${JSON.stringify(book[field])}`)
  }
  assert.equal(typeof book.name, 'string')
  assert.match(String(book.creationdate), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
  assert.equal(book.status, 0)
  assert.equal(book.status_explain, 'Active')
}

for (const dialect of DIALECTS) {
  describe(`the npm SDK sendpulse-api against the server on ${dialect}`, () => {
    let harness: SdkHarness
    let testApp: TestApp
    let account: TestAccount
    let sdk: SendpulseSdk
    let storage: string
    let exchanges: Exchange[]
    const paths = () => harness.paths()

    before(async () => {
      harness = await startSdkHarness(dialect)
      ;({ testApp, account, sdk, storage, exchanges } = harness)
    })
    after(async () => {
      await harness?.close()
    })
    beforeEach(() => {
      exchanges.length = 0
    })

    const createBook = async (name: string) => {
      const created = await call<{ id: number }>(sdk.createAddressBook, name)
      assert.ok(Number.isInteger(created.id), `created: ${JSON.stringify(created)}`)
      return created.id
    }

    it('gets a token on init and caches it in the file md5(client_id::secret) of the storage directory', async () => {
      const token = await call<unknown>((cb: Callback) => sdk.init(account.clientId, account.clientSecret, storage, cb))
      assert.equal(typeof token, 'string')
      assert.ok(String(token).length >= 20, `token: ${String(token)}`)
      assert.equal(readFileSync(tokenFile(storage, account), 'utf8'), token)
      assert.deepEqual(paths(), ['POST /oauth/access_token 200'])
    })

    it('creates a mailing list with createAddressBook and gets {id: number}, using the cached token', async () => {
      const created = await call<Record<string, unknown>>(sdk.createAddressBook, 'SDK first list')
      assert.deepEqual(Object.keys(created), ['id'])
      assert.ok(Number.isInteger(created.id) && Number(created.id) > 0, `id: ${JSON.stringify(created.id)}`)
      assert.deepEqual(paths(), ['POST /addressbooks 200'], 'a token just issued is accepted: no second token call')
    })

    it('lists mailing lists with every field of API.md 2.1, with the right types', async () => {
      const createdAt = new Date(testApp.clock.now).toISOString().slice(0, 19).replace('T', ' ')
      const id = await createBook('SDK fields list')
      const books = await call<Book[]>(sdk.listAddressBooks)
      assert.ok(Array.isArray(books), `answer: ${JSON.stringify(books)}`)
      assert.ok(books.length >= 2)
      for (const book of books) assertActiveBook(book, LIST_FIELDS)
      const book = books.find((b) => b.id === id)
      assert.ok(book, 'the new list is in the answer')
      assert.equal(book.name, 'SDK fields list')
      assert.equal(book.creationdate, createdAt)
      for (const count of ['all_email_qty', 'active_email_qty', 'inactive_email_qty', 'new_phones_quantity', 'active_phones_quantity', 'exc_phones_quantity']) {
        assert.equal(book[count], 0, `${count} of an empty list`)
      }
      // The SDK sends GET parameters as a JSON body, here `{}`.
      assert.deepEqual(paths(), ['POST /addressbooks 200', 'GET /addressbooks 200'])
    })

    it('honours limit and offset, which the SDK sends only as a JSON body on GET', async () => {
      const all = await call<Book[]>(sdk.listAddressBooks)
      for (const name of ['page a', 'page b', 'page c']) await createBook(name)
      const everything = await call<Book[]>(sdk.listAddressBooks)
      assert.equal(everything.length, all.length + 3)
      const page = await call<Book[]>(sdk.listAddressBooks, 2, all.length + 1)
      assert.deepEqual(page.map((b) => b.name), ['page b', 'page c'])
      const first = await call<Book[]>(sdk.listAddressBooks, 1, 0)
      assert.deepEqual(first.map((b) => b.id), [everything[0]?.id])
      const beyond = await call<Book[]>(sdk.listAddressBooks, 10, everything.length)
      assert.deepEqual(beyond, [])
      assert.ok(exchanges.some((e) => e.reused), 'GETs with bodies went over one kept-alive connection')
    })

    it('renames a list with editAddressBook, answering {result: true}, and the new name shows', async () => {
      const id = await createBook('SDK old name')
      const answer = await call(sdk.editAddressBook, id, 'SDK new name')
      assert.deepEqual(answer, { result: true })
      const info = await call<Book[]>(sdk.getBookInfo, id)
      assert.equal(info[0]?.name, 'SDK new name')
      const listed = await call<Book[]>(sdk.listAddressBooks)
      assert.equal(listed.find((b) => b.id === id)?.name, 'SDK new name')
    })

    it('reads one list with getBookInfo as an array of one record', async () => {
      const id = await createBook('SDK info list')
      const info = await call<Book[]>(sdk.getBookInfo, id)
      assert.ok(Array.isArray(info), `answer: ${JSON.stringify(info)}`)
      assert.equal(info.length, 1)
      const [book] = info
      assert.ok(book)
      assertActiveBook(book, BOOK_FIELDS)
      assert.equal(book.id, id)
      assert.equal(book.name, 'SDK info list')
    })

    it('answers the variables of a list with email and name, asked the way the SDK asks (1.1.7 has no getBookVariables)', async () => {
      // sendpulse-api 1.1.7 exports no method for GET /addressbooks/{id}/variables; this request is built as
      // its sendRequest() builds every GET: https.request to its host, a `{}` JSON body and the cached token.
      const id = await createBook('SDK variables list')
      const answer = (await harness.request('GET', `/addressbooks/${id}/variables`)).body
      const variables = JSON.parse(answer) as { name: string; type: string }[]
      assert.ok(Array.isArray(variables), `answer: ${answer}`)
      assert.deepEqual(variables.find((v) => v.name === 'email'), { name: 'email', type: 'string' })
      assert.deepEqual(variables.find((v) => v.name === 'name'), { name: 'name', type: 'string' })
      assert.deepEqual(paths().at(-1), `GET /addressbooks/${id}/variables 200`)
    })

    it('passes the error body of an empty list to campaignCost: {error_code: 211, message: "Addressbook is empty"}', async () => {
      const id = await createBook('SDK cost list')
      const answer = await call(sdk.campaignCost, id)
      assert.deepEqual(answer, { error_code: 211, message: 'Addressbook is empty' })
    })

    it('removes a list with removeAddressBook, answering {result: true}, and the list is gone from listAddressBooks', async () => {
      const id = await createBook('SDK doomed list')
      const before = await call<Book[]>(sdk.listAddressBooks)
      assert.ok(before.some((b) => b.id === id))
      const answer = await call(sdk.removeAddressBook, id)
      assert.deepEqual(answer, { result: true })
      const after = await call<Book[]>(sdk.listAddressBooks)
      assert.ok(Array.isArray(after))
      assert.equal(after.length, before.length - 1)
      assert.ok(!after.some((b) => b.id === id), 'the removed list is not listed')
      const info = await call<Book[]>(sdk.getBookInfo, id)
      assert.equal(info[0]?.status, 1, 'a removed list is marked as deleted')
    })

    it('keeps a Cyrillic list name intact both ways', async () => {
      const name = 'Клиенты из Москвы — рассылка «Весна»'
      const id = await createBook(name)
      const info = await call<Book[]>(sdk.getBookInfo, id)
      assert.equal(info[0]?.name, name)
      const listed = await call<Book[]>(sdk.listAddressBooks)
      assert.equal(listed.find((b) => b.id === id)?.name, name)
      const renamed = `${name} (архив)`
      assert.deepEqual(await call(sdk.editAddressBook, id, renamed), { result: true })
      assert.equal((await call<Book[]>(sdk.getBookInfo, id))[0]?.name, renamed)
    })

    it('hands an error to the callback as the JSON body: a duplicate name is {error_code: 203, message: "Name already in use"}', async () => {
      await createBook('SDK twin')
      const answer = await call(sdk.createAddressBook, 'SDK twin')
      assert.deepEqual(answer, { error_code: 203, message: 'Name already in use' })
      assert.deepEqual(paths().at(-1), 'POST /addressbooks 422')
    })

    it('fetches a new token by itself when the cached token file holds a bogus token', async () => {
      const file = tokenFile(storage, account)
      writeFileSync(file, 'bogus-token-from-an-old-cache')
      const token = await call<unknown>((cb: Callback) => sdk.init(account.clientId, account.clientSecret, storage, cb))
      assert.equal(token, 'bogus-token-from-an-old-cache', 'init takes the cached token without asking')
      exchanges.length = 0
      const books = await call<Book[]>(sdk.listAddressBooks)
      assert.ok(Array.isArray(books) && books.length > 0, `answer: ${JSON.stringify(books)}`)
      assert.deepEqual(paths(), ['GET /addressbooks 401', 'POST /oauth/access_token 200', 'GET /addressbooks 200'])
      const refused = JSON.parse(exchanges[0]?.body ?? '') as Record<string, unknown>
      assert.equal(refused.error, undefined, 'a bad bearer token is not answered with "invalid_client"')
      assert.ok(Number.isInteger(refused.error_code))
      const renewed = readFileSync(file, 'utf8')
      assert.notEqual(renewed, 'bogus-token-from-an-old-cache')
      assert.ok(renewed.length >= 20)
    })

    it('fetches a new token by itself when the cached token has expired', async () => {
      const cached = readFileSync(tokenFile(storage, account), 'utf8')
      testApp.clock.advance(3601_000)
      const books = await call<Book[]>(sdk.listAddressBooks)
      assert.ok(Array.isArray(books) && books.length > 0, `answer: ${JSON.stringify(books)}`)
      assert.deepEqual(paths(), ['GET /addressbooks 401', 'POST /oauth/access_token 200', 'GET /addressbooks 200'])
      assert.doesNotMatch(exchanges[0]?.body ?? '', /invalid_client/)
      assert.notEqual(readFileSync(tokenFile(storage, account), 'utf8'), cached)
    })

    it('gives {is_error: 1, message: "Invalid credentials"} for wrong credentials, from the invalid_client answer', async () => {
      const stranger = loadSdk()
      const wrong = { ...account, clientSecret: `${account.clientSecret}-wrong` }
      const answer = await call<unknown>((cb: Callback) => stranger.init(wrong.clientId, wrong.clientSecret, storage, cb))
      assert.deepEqual(answer, { is_error: 1, message: 'Invalid credentials' })
      assert.deepEqual(paths(), ['POST /oauth/access_token 401'])
      assert.equal((JSON.parse(exchanges[0]?.body ?? '') as { error?: unknown }).error, 'invalid_client')
      assert.equal(existsSync(tokenFile(storage, wrong)), false, 'nothing is cached for wrong credentials')
    })
  })
}
