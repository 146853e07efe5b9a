// Contacts of a mailing list (API.md 4.1 contact routes, 4.1.1): adding, re-adding, variable types, paging,
// filters, single contact, delete, unsubscribe, variables, phone and the search by variable.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { serialize } from 'php-serialize'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { snapshotDatabase, type TestAccount } from '../../helpers/factories.js'
import * as accounts from '../../../src/services/accounts/accounts.js'
import * as tags from '../../../src/services/audience/tags.js'
import { JobRunner } from '../../../src/dispatcher/jobs.js'

type Listed = { email: string; status: number; status_explain: string; phone: number | null; variables: Record<string, unknown> }

for (const dialect of DIALECTS) {
  describe(`contacts of a mailing list on ${dialect}`, () => {
    let t: TestApp
    let account: TestAccount
    const newBook = async (bookName: string) => {
      const res = await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName } })
      assert.equal(res.statusCode, 200, res.body)
      return res.json<{ id: number }>().id
    }
    const add = (id: number, payload: unknown, who = account) => t.call(who, { method: 'POST', url: `/addressbooks/${id}/emails`, payload: payload as object })
    const list = async (id: number, query = '') => {
      const res = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/emails${query}` })
      assert.equal(res.statusCode, 200, res.body)
      return res.json<Listed[]>()
    }
    const book = async (id: number) => (await t.call(account, { method: 'GET', url: `/addressbooks/${id}` })).json<Record<string, number>[]>()[0]

    before(async () => {
      t = await startTestApp(dialect)
      account = await t.account()
    })
    after(() => t.close())

    it('adds addresses given as strings and as {email, variables}, Active, with the list counts following', async () => {
      const id = await newBook('Adds')
      const res = await add(id, { emails: ['one@example.com', { email: 'two@example.com', variables: { name: 'Two', age: 30 } }] })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { result: true })
      const listed = await list(id)
      assert.deepEqual(listed, [
        { email: 'one@example.com', status: 1, status_explain: 'Active', phone: null, variables: {} },
        { email: 'two@example.com', status: 1, status_explain: 'Active', phone: null, variables: { name: 'Two', age: 30 } },
      ])
      const counts = await book(id)
      assert.equal(counts?.all_email_qty, 2)
      assert.equal(counts?.active_email_qty, 2)
      assert.equal(counts?.inactive_email_qty, 0)
      const total = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/emails/total` })
      assert.deepEqual(total.json(), { total: 2 })
    })

    it('re-adding an address updates its variables and never duplicates it', async () => {
      const id = await newBook('Re-adds')
      await add(id, { emails: [{ email: 'same@example.com', variables: { name: 'First', city: 'Kyiv' } }] })
      await add(id, { emails: [{ email: 'same@example.com', variables: { name: 'Second' } }, 'same@EXAMPLE.com'] })
      const listed = await list(id)
      assert.equal(listed.length, 1)
      assert.deepEqual(listed[0]?.variables, { name: 'Second', city: 'Kyiv' })
      const rows = await t.deps.db.selectFrom('contacts').select('id').where('address_book_id', '=', id).execute()
      assert.equal(rows.length, 1)
    })

    it('normalises addresses (trimmed, domain lower-cased) and skips invalid ones, reporting them', async () => {
      const id = await newBook('Invalid')
      const res = await add(id, { emails: ['  Mixed.Case@Example.COM ', 'not-an-address', 'also@bad'] })
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json<{ result: boolean; invalid_emails: string[] }>()
      assert.equal(body.result, true)
      assert.equal(body.invalid_emails.length, 2)
      assert.match(body.invalid_emails[0] ?? '', /not-an-address/)
      assert.deepEqual((await list(id)).map((c) => c.email), ['Mixed.Case@example.com'])
    })

    it('never adds a blacklisted address, and says so', async () => {
      const id = await newBook('Blacklisted')
      await t.call(account, { method: 'POST', url: '/blacklist', payload: { emails: Buffer.from('Banned@Example.com').toString('base64') } })
      const res = await add(id, { emails: ['Banned@EXAMPLE.com', 'welcome@example.com'] })
      assert.deepEqual(res.json(), { result: true, invalid_emails: ['Banned@example.com is on the blacklist'] })
      assert.deepEqual((await list(id)).map((c) => c.email), ['welcome@example.com'])
    })

    it('answers 422 when no address is valid, and stores nothing', async () => {
      const id = await newBook('All invalid')
      const before = await snapshotDatabase(t.deps)
      const res = await add(id, { emails: ['nope', 'nada@'] })
      assert.equal(res.statusCode, 422)
      assert.match(res.json<{ message: string }>().message, /^Argument emails is invalid/)
      assert.deepEqual(await snapshotDatabase(t.deps), before)
    })

    it('refuses a single contact object instead of a list, and a contact with extra keys, naming the shape', async () => {
      const id = await newBook('Shapes')
      const before = await snapshotDatabase(t.deps)
      const single = await add(id, { emails: { email: 'a@example.com', variables: { name: 'A' } } })
      assert.equal(single.statusCode, 422)
      assert.match(single.json<{ message: string }>().message, /emails/)
      const withStatus = await add(id, { emails: [{ email: 'a@example.com', status: 1 }] })
      assert.equal(withStatus.statusCode, 422)
      assert.match(withStatus.json<{ message: string }>().message, /"status"/)
      const badVariables = await add(id, { emails: [{ email: 'a@example.com', variables: 'x' }] })
      assert.equal(badVariables.statusCode, 422)
      assert.match(badVariables.json<{ message: string }>().message, /variables/)
      assert.deepEqual(await snapshotDatabase(t.deps), before)
    })

    it('gives a variable its type on first use and enforces it, naming the variable, writing nothing', async () => {
      const id = await newBook('Types')
      await add(id, { emails: [{ email: 'typed@example.com', variables: { age: 41, birthday: '1985-03-09', city: 'Lviv' } }] })
      const variables = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/variables` })
      assert.deepEqual(
        variables.json<{ name: string; type: string }[]>().filter((v) => !['email', 'name'].includes(v.name)),
        [
          { name: 'age', type: 'number' },
          { name: 'birthday', type: 'date' },
          { name: 'city', type: 'string' },
        ],
      )
      const before = await snapshotDatabase(t.deps)
      const notNumber = await add(id, { emails: ['ok@example.com', { email: 'x@example.com', variables: { age: 'forty' } }] })
      assert.equal(notNumber.statusCode, 422)
      assert.match(notNumber.json<{ message: string }>().message, /"age".*number/)
      const badDate = await add(id, { emails: [{ email: 'x@example.com', variables: { birthday: '2017-1-1' } }] })
      assert.equal(badDate.statusCode, 422)
      assert.match(badDate.json<{ message: string }>().message, /"birthday".*YYYY-MM-DD/)
      assert.deepEqual(await snapshotDatabase(t.deps), before, 'a refused request stores no contact, not even the valid one')
      // A string variable takes numbers and dates; a number variable takes numeric strings (forms).
      const fine = await add(id, { emails: [{ email: 'x@example.com', variables: { city: 12, age: '42' } }] })
      assert.equal(fine.statusCode, 200, fine.body)
      const x = (await list(id)).find((c) => c.email === 'x@example.com')
      assert.deepEqual(x?.variables, { city: '12', age: 42 })
    })

    it('accepts variable names in any script and refuses names without a letter or with other characters', async () => {
      const id = await newBook('Names')
      const ok = await add(id, { emails: [{ email: 'u@example.com', variables: { 'имя': 'Олена', "it's a name?": 'yes' } }] })
      assert.equal(ok.statusCode, 200, ok.body)
      for (const name of ['123', 'semi;colon', 'a<b']) {
        const res = await add(id, { emails: [{ email: 'u@example.com', variables: { [name]: 'v' } }] })
        assert.equal(res.statusCode, 422, `${name}: ${res.body}`)
        assert.ok(res.json<{ message: string }>().message.includes(name))
      }
    })

    it('reads the PHP serialize() list the npm SDK sends, and form bodies with brackets', async () => {
      const id = await newBook('Serialized')
      const serialized = serialize([{ email: 'php@example.com', variables: { name: 'Ünïcode "quoted"', score: 7 } }])
      const res = await add(id, { emails: serialized })
      assert.equal(res.statusCode, 200, res.body)
      const form = await t.call(account, {
        method: 'POST',
        url: `/addressbooks/${id}/emails`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'emails[0][email]=form%40example.com&emails[0][variables][score]=9&emails[1]=plain%40example.com',
      })
      assert.equal(form.statusCode, 200, form.body)
      const byEmail = new Map((await list(id)).map((c) => [c.email, c.variables]))
      assert.deepEqual(byEmail.get('php@example.com'), { name: 'Ünïcode "quoted"', score: 7 })
      assert.deepEqual(byEmail.get('form@example.com'), { score: 9 }, 'the form string "9" fits the number variable')
      assert.deepEqual(byEmail.get('plain@example.com'), {})
    })

    it('sets the phone through the Phone system variable and through PUT /phone; lists show it as a number', async () => {
      const id = await newBook('Phones')
      await add(id, { emails: [{ email: 'p@example.com', variables: { Phone: '+380 63 123 4567' } }, 'q@example.com'] })
      const put = await t.call(account, { method: 'PUT', url: `/addressbooks/${id}/phone`, payload: { email: 'q@example.com', phone: 447911123456 } })
      assert.deepEqual(put.json(), { result: true })
      const phones = Object.fromEntries((await list(id)).map((c) => [c.email, c.phone]))
      assert.deepEqual(phones, { 'p@example.com': 380631234567, 'q@example.com': 447911123456 })
      const bad = await t.call(account, { method: 'PUT', url: `/addressbooks/${id}/phone`, payload: { email: 'q@example.com', phone: '12' } })
      assert.deepEqual([bad.statusCode, bad.json()], [422, { error_code: 422, message: 'Phone is not valid' }])
      const unknown = await t.call(account, { method: 'PUT', url: `/addressbooks/${id}/phone`, payload: { email: 'zz@example.com', phone: 447911123456 } })
      assert.deepEqual(unknown.json(), { error_code: 502, message: 'Email address not found' })
      const counts = await book(id)
      assert.equal(counts?.active_phones_quantity, 2)
    })

    it('pages with limit (at most 100) and offset, filters active / not_active, and orders', async () => {
      const id = await newBook('Paging')
      const emails = Array.from({ length: 120 }, (_, i) => `page${String(i).padStart(3, '0')}@example.com`)
      await add(id, { emails })
      assert.equal((await list(id)).length, 100, 'no limit: the maximum page')
      assert.equal((await list(id, '?limit=500')).length, 100, 'above the maximum: the maximum (COMPAT.md 13)')
      assert.equal((await list(id, '?limit=0')).length, 100, 'limit 0: the default page')
      assert.deepEqual((await list(id, '?limit=3&offset=110')).map((c) => c.email), emails.slice(110, 113))
      assert.deepEqual((await list(id, '?limit=2&order=desc')).map((c) => c.email), [emails[119], emails[118]])
      // The npm SDK sends paging as a JSON body on GET; Python as a JSON query string.
      const body = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/emails`, payload: { limit: 1, offset: 5 } })
      assert.deepEqual(body.json<Listed[]>().map((c) => c.email), [emails[5]])
      const json = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/emails?${encodeURIComponent('{"limit": 1, "offset": 6}')}` })
      assert.deepEqual(json.json<Listed[]>().map((c) => c.email), [emails[6]])
      const unsubscribed = await t.call(account, { method: 'POST', url: `/addressbooks/${id}/emails/unsubscribe`, payload: { emails: [emails[0], emails[1]] } })
      assert.deepEqual(unsubscribed.json(), { result: true })
      const inactive = await list(id, '?not_active=1')
      assert.deepEqual(inactive.map((c) => [c.email, c.status, c.status_explain]), [
        [emails[0], 4, 'Unsubscribed'],
        [emails[1], 4, 'Unsubscribed'],
      ])
      assert.equal((await list(id, '?active=true&limit=100&offset=100')).length, 18)
      const counts = await book(id)
      assert.deepEqual([counts?.all_email_qty, counts?.active_email_qty, counts?.inactive_email_qty], [120, 118, 2])
      const activeTotal = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/emails/total?active=true` })
      assert.deepEqual(activeTotal.json(), { total: 118 })
      const again = await t.call(account, { method: 'POST', url: `/addressbooks/${id}/emails/unsubscribe`, payload: { emails: [emails[0]] } })
      assert.deepEqual([again.statusCode, again.json()], [422, { error_code: 422, message: 'Active emails not found' }])
    })

    it('keeps pages read one after another exact while contacts are added, deleted and unsubscribed', async () => {
      const id = await newBook('Sequential pages')
      let emails = Array.from({ length: 40 }, (_, i) => `seq${String(i).padStart(2, '0')}@example.com`)
      await add(id, { emails })
      const page = async (offset: number, filter = '') => (await list(id, `?limit=10&offset=${offset}${filter}`)).map((c) => c.email)
      assert.deepEqual(await page(0), emails.slice(0, 10))
      assert.deepEqual(await page(10), emails.slice(10, 20))
      await t.call(account, { method: 'DELETE', url: `/addressbooks/${id}/emails`, payload: { emails: [emails[3]] } })
      emails = emails.filter((_, i) => i !== 3)
      assert.deepEqual(await page(20), emails.slice(20, 30), 'a deletion before the page moves it by one')
      assert.deepEqual(await page(30), emails.slice(30, 40))
      await add(id, { emails: ['seq-late@example.com'] })
      emails.push('seq-late@example.com')
      assert.deepEqual(await page(30), emails.slice(30, 40), 'an address added at the end is on the last page')
      assert.deepEqual(await page(10, '&active=1'), emails.slice(10, 20))
      await t.call(account, { method: 'POST', url: `/addressbooks/${id}/emails/unsubscribe`, payload: { emails: [emails[0]] } })
      assert.deepEqual(await page(10, '&active=1'), emails.slice(11, 21), 'an unsubscribed address leaves the active pages')
      assert.deepEqual(await page(10), emails.slice(10, 20), 'and stays in the full list')
    })

    it('answers one contact with abook_id and phone as strings ("" when none) and variables as [{name, type, value}]', async () => {
      const id = await newBook('Single')
      await add(id, { emails: [{ email: 'single@example.com', variables: { name: 'Solo', age: 5 } }, 'bare@example.com'] })
      const res = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/emails/single@example.com` })
      assert.deepEqual(res.json(), {
        email: 'single@example.com',
        abook_id: String(id),
        phone: '',
        status: 1,
        status_explain: 'Active',
        variables: [
          { name: 'name', type: 'string', value: 'Solo' },
          { name: 'age', type: 'number', value: '5' },
        ],
      })
      const bare = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/emails/bare%40example.com` })
      assert.deepEqual(bare.json<{ variables: unknown }>().variables, [], 'no variables: an empty array')
      await t.call(account, { method: 'PUT', url: `/addressbooks/${id}/phone`, payload: { email: 'bare@example.com', phone: 380631234567 } })
      const withPhone = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/emails/bare@example.com` })
      assert.equal(withPhone.json<{ phone: unknown }>().phone, '380631234567', 'the OpenAPI file types phone as a string here (not as in lists)')
      const missing = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/emails/nobody@example.com` })
      assert.equal(missing.statusCode, 404)
      assert.deepEqual(missing.json(), { error_code: 502, message: 'Email address not found' })
    })

    it('deletes up to 100 addresses per call; more is the published 422 and deletes nothing', async () => {
      const id = await newBook('Deletes')
      const emails = Array.from({ length: 101 }, (_, i) => `del${i}@example.com`)
      await add(id, { emails })
      const tooMany = await t.call(account, { method: 'DELETE', url: `/addressbooks/${id}/emails`, payload: { emails } })
      assert.deepEqual([tooMany.statusCode, tooMany.json()], [422, { error_code: 422, message: 'Limit is exceeded. Max count: 100' }])
      assert.equal((await book(id))?.all_email_qty, 101)
      const res = await t.call(account, { method: 'DELETE', url: `/addressbooks/${id}/emails`, payload: { emails: serialize(emails.slice(0, 100)) } })
      assert.deepEqual(res.json(), { result: true })
      assert.deepEqual((await list(id)).map((c) => c.email), ['del100@example.com'])
      const none = await t.call(account, { method: 'DELETE', url: `/addressbooks/${id}/emails`, payload: { emails: [] } })
      assert.equal(none.statusCode, 422)
    })

    it('changes the variables of one contact with [{name, value}], declaring new ones and enforcing types', async () => {
      const id = await newBook('Variables')
      await add(id, { emails: [{ email: 'v@example.com', variables: { name: 'Old', age: 1 } }] })
      const url = `/addressbooks/${id}/emails/variable`
      const ok = await t.call(account, { method: 'POST', url, payload: { email: 'v@example.com', variables: [{ name: 'name', value: 'New' }, { name: 'since', value: '2024-05-01' }] } })
      assert.deepEqual(ok.json(), { result: true })
      assert.deepEqual((await list(id))[0]?.variables, { name: 'New', age: 1, since: '2024-05-01' })
      const form = await t.call(account, {
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'email=v%40example.com&variables[0][name]=age&variables[0][value]=77',
      })
      assert.equal(form.statusCode, 200, form.body)
      assert.equal((await list(id))[0]?.variables.age, 77)
      const wrong = await t.call(account, { method: 'POST', url, payload: { email: 'v@example.com', variables: [{ name: 'since', value: '2017-1-1' }] } })
      assert.equal(wrong.statusCode, 422)
      assert.match(wrong.json<{ message: string }>().message, /"since"/)
      const missing = await t.call(account, { method: 'POST', url, payload: { email: 'who@example.com', variables: [{ name: 'name', value: 'x' }] } })
      assert.deepEqual(missing.json(), { error_code: 502, message: 'Email address not found' })
    })

    it('finds contacts by a variable value, through /variables/… and the published //variables/… path', async () => {
      const id = await newBook('Search')
      await add(id, {
        emails: [
          { email: 's1@example.com', variables: { city: 'Kyiv', age: 30, Phone: 380631234567 } },
          { email: 's2@example.com', variables: { city: 'Lviv', age: 30 } },
          { email: 's3@example.com', variables: { city: 'Kyiv', age: 31 } },
        ],
      })
      const kyiv = await t.call(account, { method: 'GET', url: `/addressbooks/${id}//variables/city/Kyiv` })
      assert.deepEqual(kyiv.json(), [
        { email: 's1@example.com', phone: 380631234567, status: 1, status_explain: 'Active' },
        { email: 's3@example.com', phone: null, status: 1, status_explain: 'Active' },
      ])
      const thirty = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/variables/age/30` })
      assert.deepEqual(thirty.json<{ email: string }[]>().map((c) => c.email), ['s1@example.com', 's2@example.com'])
      const unknown = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/variables/nothing/x` })
      assert.deepEqual([unknown.statusCode, unknown.json()], [404, { error_code: 299, message: 'Variable not found' }])
      const badNumber = await t.call(account, { method: 'GET', url: `/addressbooks/${id}/variables/age/abc` })
      assert.deepEqual(badNumber.json(), { error_code: 422, message: 'Variable value wrong format' })
    })

    it('new contacts wait for activation (status 0) when the operator says so', async () => {
      const manual = await startTestApp(dialect, { contactActivation: 'manual' })
      try {
        const owner = await manual.account()
        const created = await manual.call(owner, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Manual' } })
        const id = created.json<{ id: number }>().id
        await manual.call(owner, { method: 'POST', url: `/addressbooks/${id}/emails`, payload: { emails: ['wait@example.com'] } })
        const listed = await manual.call(owner, { method: 'GET', url: `/addressbooks/${id}/emails` })
        assert.deepEqual(listed.json<Listed[]>().map((c) => [c.status, c.status_explain]), [[0, 'New']])
      } finally {
        await manual.close()
      }
    })

    it('pins existing tags to the addresses added with `tags`; unknown tags and lower plans are refused', async () => {
      const id = await newBook('Tagged')
      const created = await t.call(account, { method: 'POST', url: '/tags', payload: { name: 'vip', color: '#ff0000' } })
      assert.equal(created.statusCode, 200, created.body)
      assert.equal(await new JobRunner(t.deps, tags.jobHandlers).runDue(), 1)
      const tagId = (await t.call(account, { method: 'GET', url: '/tags' })).json<{ tags: { id: number }[] }>().tags[0]?.id
      const res = await add(id, { emails: ['tagged@example.com'], tags: [tagId] })
      assert.deepEqual(res.json(), { result: true })
      const links = await t.deps.db.selectFrom('tag_links').select(['tag_id', 'kind', 'value']).where('account_id', '=', account.id).execute()
      assert.deepEqual(links.map((l) => [Number(l.tag_id), l.kind, l.value]), [[tagId, 'email', 'tagged@example.com']])

      const unknown = await add(id, { emails: ['x@example.com'], tags: [999999] })
      assert.deepEqual([unknown.statusCode, unknown.json()], [422, { error_code: 422, message: 'Argument tags is invalid' }])
      const notInteger = await add(id, { emails: ['x@example.com'], tags: ['vip'] })
      assert.deepEqual(notInteger.json(), { error_code: 422, message: 'Argument tags is invalid' })
      const basic = await accounts.createAccount(t.deps, { name: 'standard plan', plan: 'standard' })
      const token = await t.app.inject({ method: 'POST', url: '/oauth/access_token', payload: { grant_type: 'client_credentials', client_id: basic.client_id, client_secret: basic.client_secret } })
      const standard = { id: basic.id, clientId: basic.client_id, clientSecret: basic.client_secret, token: token.json<{ access_token: string }>().access_token, tokenIssuedAt: t.clock.now }
      const theirBook = (await t.call(standard, { method: 'POST', url: '/addressbooks', payload: { bookName: 'Standard' } })).json<{ id: number }>().id
      const refused = await add(theirBook, { emails: ['y@example.com'], tags: [1] }, standard)
      assert.deepEqual([refused.statusCode, refused.json()], [403, { error_code: 3030303030, message: 'Access denied! Please change your tariff plan' }])
      assert.equal((await list(id)).some((c) => c.email === 'x@example.com'), false, 'nothing added by refused calls')
    })

    const contactCalls = (id: number) =>
      [
        { method: 'POST', url: `/addressbooks/${id}/emails`, payload: { emails: ['a@example.com'] } },
        { method: 'GET', url: `/addressbooks/${id}/emails` },
        { method: 'GET', url: `/addressbooks/${id}/emails/a@example.com` },
        { method: 'GET', url: `/addressbooks/${id}/emails/total` },
        { method: 'DELETE', url: `/addressbooks/${id}/emails`, payload: { emails: ['a@example.com'] } },
        { method: 'POST', url: `/addressbooks/${id}/emails/unsubscribe`, payload: { emails: ['a@example.com'] } },
        { method: 'POST', url: `/addressbooks/${id}/emails/variable`, payload: { email: 'a@example.com', variables: [{ name: 'n', value: 'v' }] } },
        { method: 'PUT', url: `/addressbooks/${id}/phone`, payload: { email: 'a@example.com', phone: 447911123456 } },
        { method: 'GET', url: `/addressbooks/${id}/variables/n/v` },
      ] as const

    it('answers 404 Book not found for every contact route of a deleted list', async () => {
      const id = await newBook('Gone')
      await t.call(account, { method: 'DELETE', url: `/addressbooks/${id}` })
      for (const call of contactCalls(id)) {
        const res = await t.call(account, call)
        assert.deepEqual([res.statusCode, res.json()], [404, { error_code: 213, message: 'Book not found' }], `${call.method} ${call.url}`)
      }
    })

    it("answers another account 404 on every contact route of this account's list, and changes nothing", async () => {
      const id = await newBook('Private')
      await add(id, { emails: [{ email: 'a@example.com', variables: { n: 'v' } }] })
      const intruder = await t.account()
      const before = await snapshotDatabase(t.deps)
      for (const call of contactCalls(id)) {
        const res = await t.call(intruder, call)
        assert.deepEqual([res.statusCode, res.json()], [404, { error_code: 213, message: 'Book not found' }], `${call.method} ${call.url}`)
      }
      assert.deepEqual(await snapshotDatabase(t.deps), before)
    })
  })
}
