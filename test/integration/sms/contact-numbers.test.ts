// An email contact's phone is also one of its list's numbers (API.md 4.1 PUT /addressbooks/{id}/phone, the
// `Phone` variable of 4.1.1, a CSV phone column), so the list's SMS campaigns reach it, unless the contact
// still waits for its confirmation or for the operator; and a CSV of numbers alone fills the list's numbers.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { activeSender } from '../../helpers/senders.js'
import { importContacts, type RejectedRow } from '../../../src/services/audience/contact-import.js'
import { activateContacts } from '../../../src/services/audience/contact-activation.js'
import { sendableNumbersOf } from '../../../src/storage/repos/list-phones.js'

for (const dialect of DIALECTS) {
  describe(`contacts' phones as list numbers on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    const newBook = async (bookName: string, app = t, who = account) => (await app.call(who, { method: 'POST', url: '/addressbooks', payload: { bookName } })).json<{ id: number }>().id
    const numbers = async (bookId: number, app = t) => {
      const rows = await app.deps.db.selectFrom('list_phones').select(['phone', 'status', 'variables', 'account_id']).where('address_book_id', '=', bookId).orderBy('phone').execute()
      return rows.map((r) => ({ phone: r.phone, status: r.status, variables: JSON.parse(r.variables) as unknown, account: Number(r.account_id) }))
    }
    const importCsv = async (bookId: number, csv: string) => {
      const rejected: RejectedRow[] = []
      const summary = await importContacts(t.deps, { accountId: account.id, bookId, csv: Readable.from([csv]), onRejected: async (rows) => void rejected.push(...rows) })
      return { summary, rejected: rejected.map((r) => [r.line, r.reason]) }
    }

    before(async () => {
      t = await startTestApp(dialect, { publicUrl: 'https://news.example.org' })
      account = await t.account()
    })
    after(() => t.close())

    it('adds the phone set with PUT /phone and the Phone variable to the numbers, Active, with the variables given', async () => {
      const id = await newBook('Phones')
      await t.call(account, {
        method: 'POST',
        url: `/addressbooks/${id}/emails`,
        payload: { emails: [{ email: 'p@example.com', variables: { Phone: '+380 63 123 4567', name: 'Pat' } }, { email: 'q@example.com', variables: { name: 'Quinn' } }] },
      })
      const put = await t.call(account, { method: 'PUT', url: `/addressbooks/${id}/phone`, payload: { email: 'q@example.com', phone: 447911123456 } })
      assert.deepEqual(put.json(), { result: true })
      await t.call(account, { method: 'POST', url: `/addressbooks/${id}/emails/variable`, payload: { email: 'p@example.com', variables: [{ name: 'Phone', value: '380631234568' }] } })
      assert.deepEqual(await numbers(id), [
        { phone: '380631234567', status: 1, variables: { name: 'Pat' }, account: account.id },
        { phone: '380631234568', status: 1, variables: { name: 'Pat' }, account: account.id },
        { phone: '447911123456', status: 1, variables: { name: 'Quinn' }, account: account.id },
      ])
      assert.deepEqual((await sendableNumbersOf(t.deps.db, account.id, id)).map((n) => n.phone), ['380631234567', '447911123456', '380631234568'], 'the SMS campaigns of the list reach them')
      const [book] = (await t.call(account, { method: 'GET', url: `/addressbooks/${id}` })).json<Record<string, number>[]>()
      assert.equal(book?.active_phones_quantity, 3)
      // A number the list has already keeps its place; the contact's variables are merged into it.
      await t.call(account, { method: 'POST', url: '/sms/numbers/variables', payload: { addressBookId: id, phones: { '380501234567': [[{ name: 'city', value: 'Kyiv' }]] } } })
      await t.call(account, { method: 'POST', url: `/addressbooks/${id}/emails`, payload: { emails: [{ email: 'r@example.com', variables: { Phone: '380501234567', name: 'Rae' } }] } })
      assert.deepEqual((await numbers(id))[0]?.variables, { city: 'Kyiv', name: 'Rae' })
    })

    it('keeps the number of a contact awaiting its double opt-in confirmation out of campaigns until it confirms', async () => {
      const id = await newBook('Opt-in')
      await activeSender(t, account, 'owner@example.org')
      const added = await t.call(account, {
        method: 'POST',
        url: `/addressbooks/${id}/emails`,
        payload: { confirmation: 'force', message_lang: 'en', sender_email: 'owner@example.org', emails: [{ email: 'wait@example.com', variables: { Phone: '380631234569' } }] },
      })
      assert.equal(added.statusCode, 200, added.body)
      assert.deepEqual((await numbers(id)).map((n) => n.status), [2])
      assert.deepEqual(await sendableNumbersOf(t.deps.db, account.id, id), [])
      const email = await t.deps.db.selectFrom('outbox').select('text').where('kind', '=', 'confirmation').where('to_email', '=', 'wait@example.com').executeTakeFirstOrThrow()
      const link = /https:\/\/news\.example\.org(\/confirm\/\S+)/.exec(email.text)![1]!
      const pressed = await t.app.inject({ method: 'POST', url: link, payload: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
      assert.match(pressed.body, /confirmed/)
      assert.deepEqual((await numbers(id)).map((n) => n.status), [1])
    })

    it('adds numbers as New under manual activation; the operator activates them with the contacts', async () => {
      const manual = await startTestApp(dialect, { contactActivation: 'manual' })
      try {
        const owner = await manual.account()
        const id = await newBook('Manual', manual, owner)
        await manual.call(owner, { method: 'POST', url: `/addressbooks/${id}/emails`, payload: { emails: [{ email: 'a@example.com', variables: { Phone: '380631234567' } }, 'b@example.com'] } })
        await manual.call(owner, { method: 'POST', url: '/sms/numbers', payload: { addressBookId: id, phones: ['380631234568'] } })
        assert.deepEqual((await numbers(id, manual)).map((n) => n.status), [0, 0])
        assert.deepEqual(await activateContacts(manual.deps, { accountId: owner.id, bookId: id, emails: ['a@example.com'] }), { contacts: 1, numbers: 1 })
        assert.deepEqual((await numbers(id, manual)).map((n) => [n.phone, n.status]), [['380631234567', 1], ['380631234568', 0]])
        assert.deepEqual(await activateContacts(manual.deps, { accountId: owner.id, bookId: id }), { contacts: 1, numbers: 1 })
        assert.deepEqual((await numbers(id, manual)).map((n) => n.status), [1, 1])
      } finally {
        await manual.close()
      }
    })

    it('imports a CSV with a Phone column: contacts with phones, and their numbers in the list', async () => {
      const id = await newBook('CSV with phones')
      const { summary, rejected } = await importCsv(id, 'email,name,Phone\nann@example.com,Ann,+380631234567\nbob@example.com,Bob,\ncid@example.com,Cid,12\n')
      assert.deepEqual({ ...summary }, { added: 2, updated: 0, invalid: 1, blacklisted: 0, rows: 3 })
      assert.deepEqual(rejected, [[4, 'Phone "12" of cid@example.com is not valid']])
      assert.deepEqual(await numbers(id), [{ phone: '380631234567', status: 1, variables: { name: 'Ann' }, account: account.id }])
    })

    it('imports a CSV of numbers alone (a Phone column, no email column) into the list numbers, with variables', async () => {
      const id = await newBook('CSV of numbers')
      await t.call(account, { method: 'POST', url: '/sms/numbers', payload: { addressBookId: id, phones: ['380501234567'] } })
      const csv = 'Phone,city,visits\n+380631234567,Kyiv,3\n380631234568,Lviv,\nnot a number,Odesa,1\n380501234567,Dnipro,2\n380631234567,Kyiv,4\n'
      const { summary, rejected } = await importCsv(id, csv)
      assert.deepEqual({ ...summary }, { added: 2, updated: 2, invalid: 1, blacklisted: 0, rows: 5 })
      assert.deepEqual(rejected, [[4, '"not a number" is not a valid phone number']])
      assert.deepEqual(await numbers(id), [
        { phone: '380501234567', status: 1, variables: { city: 'Dnipro', visits: 2 }, account: account.id },
        { phone: '380631234567', status: 1, variables: { city: 'Kyiv', visits: 4 }, account: account.id },
        { phone: '380631234568', status: 1, variables: { city: 'Lviv' }, account: account.id },
      ])
      const declared = (await t.call(account, { method: 'GET', url: `/addressbooks/${id}/variables` })).json<{ name: string; type: string }[]>()
      assert.deepEqual(declared.slice(2), [{ name: 'city', type: 'string' }, { name: 'visits', type: 'number' }])
      await assert.rejects(importCsv(id, 'name,city\nAnn,Kyiv\n'), /the header has no email column, nor a Phone column/)
    })
  })
}
