// Sender routes (API.md 4.4): adding, listing, deleting, and activation with a code read from the emailed
// message in the outbox; limits on codes and wrong guesses; one account never touches another's senders.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { snapshotDatabase, type TestAccount } from '../../helpers/factories.js'
import { requireActiveSender } from '../../../src/services/email/senders.js'
import { AppError } from '../../../src/services/errors.js'

const HOUR = 3_600_000
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' }

for (const dialect of DIALECTS) {
  describe(`senders on ${dialect}`, () => {
    let t: TestApp
    before(async () => {
      // Tokens that outlive the hours and days these tests move the clock by.
      t = await startTestApp(dialect, {})
    })
    after(() => t.close())

    const add = async (account: TestAccount, email: string, name = 'Sales') => {
      const res = await t.call(account, { method: 'POST', url: '/senders', payload: { email, name } })
      assert.deepEqual(res.json(), { result: true })
      assert.equal(res.statusCode, 200)
    }
    const list = async (account: TestAccount) => (await t.call(account, { method: 'GET', url: '/senders' })).json<Record<string, unknown>[]>()
    const requestCode = (account: TestAccount, email: string) => t.call(account, { method: 'GET', url: `/senders/${email}/code` })
    const activate = (account: TestAccount, email: string, code: unknown) =>
      t.call(account, { method: 'POST', url: `/senders/${email}/code`, payload: { code } })
    /** The activation emails the account's senders were sent, oldest first. */
    const codeEmails = (account: TestAccount) =>
      t.deps.db.selectFrom('outbox').selectAll().where('account_id', '=', account.id).where('kind', '=', 'sender_code').orderBy('id').execute()
    /** The code in the latest activation email to `email`, read as its recipient would: from the text. */
    const latestCode = async (account: TestAccount, email: string) => {
      const mine = (await codeEmails(account)).filter((e) => e.to_email === email)
      const match = /\b(\d{8})\b/.exec(mine.at(-1)?.text ?? '')
      assert.ok(match, `an activation email to ${email}`)
      return match[1]!
    }
    const senderRow = (account: TestAccount, email: string) =>
      t.deps.db.selectFrom('senders').selectAll().where('account_id', '=', account.id).where('email', '=', email).executeTakeFirstOrThrow()
    const wrongCodeFor = (code: string) => String(((Number(code) - 10_000_000 + 1) % 90_000_000) + 10_000_000)

    it('adds an inactive sender and lists it with the fields and types of API.md 2.5', async () => {
      const account = await t.account()
      assert.deepEqual(await list(account), [])
      await add(account, 'News@Example.COM', 'Newsletter')
      await add(account, 'sales@example.com', 'Sales team')
      assert.deepEqual(await list(account), [
        { email: 'News@example.com', name: 'Newsletter', status: 'Not active', is_allowed_for_smtp: true },
        { email: 'sales@example.com', name: 'Sales team', status: 'Not active', is_allowed_for_smtp: true },
      ])
      assert.equal((await codeEmails(account)).length, 0, 'adding a sender emails nothing')
    })

    it('refuses an address the account already has, an invalid address and a missing name, changing nothing', async () => {
      const account = await t.account()
      await add(account, 'dup@example.com')
      const before = await snapshotDatabase(t.deps)
      const cases: [Record<string, unknown>, { error_code: number; message: string }][] = [
        [{ email: 'dup@EXAMPLE.com', name: 'Again' }, { error_code: 422, message: 'Sender already exists' }],
        [{ email: 'not an address', name: 'X' }, { error_code: 422, message: 'Argument email is invalid' }],
        [{ email: 'a@b', name: 'X' }, { error_code: 422, message: 'Argument email is invalid' }],
        [{ email: 'x@example.com' }, { error_code: 422, message: 'Argument name missing' }],
        [{ name: 'X' }, { error_code: 422, message: 'Argument email missing' }],
        [{ email: 'x@example.com', name: 'two\nlines' }, { error_code: 422, message: 'Argument name is invalid' }],
      ]
      for (const [payload, body] of cases) {
        const res = await t.call(account, { method: 'POST', url: '/senders', payload })
        assert.equal(res.statusCode, 422, JSON.stringify(payload))
        assert.deepEqual(res.json(), body, JSON.stringify(payload))
      }
      assert.deepEqual(await snapshotDatabase(t.deps), before)
    })

    it('deletes a sender by address, and answers 404 for one the account does not have', async () => {
      const account = await t.account()
      await add(account, 'gone@example.com')
      await add(account, 'kept@example.com')
      const res = await t.call(account, { method: 'DELETE', url: '/senders', payload: { email: 'gone@Example.com' } })
      assert.deepEqual(res.json(), { result: true })
      assert.deepEqual((await list(account)).map((s) => s.email), ['kept@example.com'])
      const again = await t.call(account, { method: 'DELETE', url: '/senders', payload: { email: 'gone@example.com' } })
      assert.equal(again.statusCode, 404)
      assert.deepEqual(again.json(), { error_code: 404, message: 'Sender not found' })
      const form = await t.call(account, { method: 'DELETE', url: '/senders', headers: FORM_TYPE, payload: 'email=kept%40example.com' })
      assert.deepEqual(form.json(), { result: true })
      assert.deepEqual(await list(account), [])
    })

    it('emails an activation code from the system address and activates the sender with it', async () => {
      const account = await t.account()
      await add(account, 'owner@example.com', 'Owner')
      await assert.rejects(requireActiveSender(t.deps, account.id, 'owner@example.com'), { message: 'Sender not found', publishedCode: 1003 })
      const res = await requestCode(account, 'owner@example.com')
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json(), { result: true, email: 'owner@example.com' })
      const [email] = await codeEmails(account)
      assert.deepEqual(
        { from: email?.from_email, name: email?.from_name, to: email?.to_email, status: email?.status },
        { from: 'no-reply@localhost.localdomain', name: 'Tidings', to: 'owner@example.com', status: 'queued' },
      )
      const code = await latestCode(account, 'owner@example.com')
      assert.ok(email?.subject.includes(code) && email.html.includes(code), 'the code is in the subject and the HTML too')
      const row = await senderRow(account, 'owner@example.com')
      assert.ok(row.code_hash && !row.code_hash.includes(code), 'only a hash of the code is stored')
      assert.equal(Number(row.code_expires_at), t.clock.now + 24 * HOUR)

      const activated = await activate(account, 'owner@example.com', code)
      assert.equal(activated.statusCode, 200)
      assert.deepEqual(activated.json(), { result: true, email: 'owner@example.com' })
      assert.deepEqual(await list(account), [{ email: 'owner@example.com', name: 'Owner', status: 'Active', is_allowed_for_smtp: true }])
      assert.equal((await senderRow(account, 'owner@example.com')).code_hash, null)
      assert.deepEqual(await requireActiveSender(t.deps, account.id, 'owner@EXAMPLE.com'), { email: 'owner@example.com', name: 'Owner' })

      const more = await requestCode(account, 'owner@example.com')
      assert.deepEqual(more.json(), { error_code: 422, message: 'Sender is already active' })
      const reuse = await activate(account, 'owner@example.com', code)
      assert.deepEqual(reuse.json(), { error_code: 422, message: 'Sender is already active' })
    })

    it('takes the address unescaped or percent-encoded in the path, and the code as a JSON number or a form string', async () => {
      const account = await t.account()
      await add(account, 'path@example.com')
      await add(account, 'form@example.com')
      assert.deepEqual((await requestCode(account, 'path%40Example.com')).json(), { result: true, email: 'path@example.com' })
      const asNumber = await activate(account, 'path@example.com', Number(await latestCode(account, 'path@example.com')))
      assert.deepEqual(asNumber.json(), { result: true, email: 'path@example.com' })

      assert.deepEqual((await requestCode(account, 'form@example.com')).json(), { result: true, email: 'form@example.com' })
      const code = await latestCode(account, 'form@example.com')
      const res = await t.call(account, { method: 'POST', url: '/senders/form%40example.com/code', headers: FORM_TYPE, payload: `code=${code}` })
      assert.deepEqual(res.json(), { result: true, email: 'form@example.com' })
      assert.deepEqual((await list(account)).map((s) => s.status), ['Active', 'Active'])
    })

    it('accepts only the latest code: a new request replaces the previous one', async () => {
      const account = await t.account()
      await add(account, 'twice@example.com')
      await requestCode(account, 'twice@example.com')
      const first = await latestCode(account, 'twice@example.com')
      await requestCode(account, 'twice@example.com')
      const second = await latestCode(account, 'twice@example.com')
      if (first !== second) {
        const old = await activate(account, 'twice@example.com', first)
        assert.equal(old.statusCode, 422)
        assert.match(old.json<{ message: string }>().message, /^Wrong activation code/)
      }
      assert.deepEqual((await activate(account, 'twice@example.com', second)).json(), { result: true, email: 'twice@example.com' })
    })

    it('counts wrong codes, locks the sender for an hour at the fifth, refusing even the right code until then', async () => {
      const account = await t.account()
      await add(account, 'guess@example.com')
      await requestCode(account, 'guess@example.com')
      const code = await latestCode(account, 'guess@example.com')
      const wrong = wrongCodeFor(code)
      for (let i = 1; i <= 4; i++) {
        const res = await activate(account, 'guess@example.com', wrong)
        assert.equal(res.statusCode, 422)
        assert.match(res.json<{ message: string }>().message, new RegExp(`^Wrong activation code; ${5 - i} attempts? left`))
        assert.equal((await senderRow(account, 'guess@example.com')).failed_attempts, i)
      }
      const fifth = await activate(account, 'guess@example.com', wrong)
      assert.equal(fifth.statusCode, 422)
      assert.match(fifth.json<{ message: string }>().message, /^Wrong activation code; too many wrong codes: sender is locked until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/)

      const locked = await activate(account, 'guess@example.com', code)
      assert.equal(locked.statusCode, 422)
      const lockedUntil = new Date(t.clock.now + HOUR).toISOString().slice(0, 19).replace('T', ' ')
      assert.deepEqual(locked.json(), { error_code: 422, message: `Too many wrong activation codes; sender is locked until ${lockedUntil} UTC` })
      assert.equal((await list(account))[0]?.status, 'Not active')

      t.clock.advance(HOUR)
      assert.deepEqual((await activate(account, 'guess@example.com', code)).json(), { result: true, email: 'guess@example.com' })
      const row = await senderRow(account, 'guess@example.com')
      assert.deepEqual([row.status, row.failed_attempts, row.locked_until], ['active', 0, null])
    })

    it('checks no more than 5 codes when many guesses arrive at once', async () => {
      const account = await t.account()
      await add(account, 'burst@example.com')
      await requestCode(account, 'burst@example.com')
      const wrong = wrongCodeFor(await latestCode(account, 'burst@example.com'))
      const answers = await Promise.all(Array.from({ length: 12 }, () => activate(account, 'burst@example.com', wrong)))
      const messages = answers.map((res) => res.json<{ message: string }>().message)
      assert.equal(messages.filter((m) => m.startsWith('Wrong activation code')).length, 5, messages.join('\n'))
      assert.equal(messages.filter((m) => m.startsWith('Too many wrong activation codes; sender is locked until')).length, 7)
    })

    it('starts a new count of wrong codes once a lock has expired', async () => {
      const account = await t.account()
      await add(account, 'again@example.com')
      await requestCode(account, 'again@example.com')
      const wrong = wrongCodeFor(await latestCode(account, 'again@example.com'))
      for (let i = 0; i < 5; i++) await activate(account, 'again@example.com', wrong)
      t.clock.advance(HOUR)
      const res = await activate(account, 'again@example.com', wrong)
      assert.match(res.json<{ message: string }>().message, /^Wrong activation code; 4 attempts left/)
    })

    it('refuses an expired code, and a code when none was requested', async () => {
      const account = await t.account()
      await add(account, 'late@example.com')
      const none = await activate(account, 'late@example.com', '12345678')
      assert.deepEqual(none.json(), { error_code: 422, message: 'No activation code was requested for this sender' })
      await requestCode(account, 'late@example.com')
      const code = await latestCode(account, 'late@example.com')
      t.clock.advance(24 * HOUR)
      const expired = await activate(account, 'late@example.com', code)
      assert.equal(expired.statusCode, 422)
      assert.deepEqual(expired.json(), { error_code: 422, message: 'Activation code has expired; request a new one' })
      await requestCode(account, 'late@example.com')
      assert.deepEqual((await activate(account, 'late@example.com', await latestCode(account, 'late@example.com'))).json(), {
        result: true,
        email: 'late@example.com',
      })
    })

    it('refuses a code that is not digits without counting it as a guess', async () => {
      const account = await t.account()
      await add(account, 'digits@example.com')
      await requestCode(account, 'digits@example.com')
      for (const code of ['abc', '12 34', { x: 1 }, -5]) {
        const res = await activate(account, 'digits@example.com', code)
        assert.equal(res.statusCode, 422, JSON.stringify(code))
        assert.match(res.json<{ message: string }>().message, /code/)
      }
      const missing = await t.call(account, { method: 'POST', url: '/senders/digits@example.com/code', payload: {} })
      assert.deepEqual(missing.json(), { error_code: 422, message: 'Argument code missing' })
      assert.equal((await senderRow(account, 'digits@example.com')).failed_attempts, 0)
    })

    it('sends at most 5 codes an hour to a sender', async () => {
      const account = await t.account()
      await add(account, 'limit@example.com')
      for (let i = 0; i < 5; i++) assert.equal((await requestCode(account, 'limit@example.com')).statusCode, 200)
      const sixth = await requestCode(account, 'limit@example.com')
      assert.equal(sixth.statusCode, 422)
      assert.deepEqual(sixth.json(), { error_code: 422, message: 'Too many activation codes requested; try again later' })
      assert.equal((await codeEmails(account)).length, 5)
      t.clock.advance(HOUR)
      assert.equal((await requestCode(account, 'limit@example.com')).statusCode, 200)
    })

    it('sends at most 20 codes an hour over all the senders of an account', async () => {
      const account = await t.account()
      for (let s = 0; s < 5; s++) await add(account, `bulk${s}@example.com`)
      for (let s = 0; s < 4; s++) {
        for (let i = 0; i < 5; i++) assert.equal((await requestCode(account, `bulk${s}@example.com`)).statusCode, 200)
      }
      const over = await requestCode(account, 'bulk4@example.com')
      assert.deepEqual(over.json(), { error_code: 422, message: 'Too many activation codes requested; try again later' })
      assert.equal((await codeEmails(account)).length, 20)
    })

    it('answers 404 for an address the account has no sender for, and 422 for one that is not an address', async () => {
      const account = await t.account()
      for (const res of [await requestCode(account, 'nobody@example.com'), await activate(account, 'nobody@example.com', '12345678')]) {
        assert.equal(res.statusCode, 404)
        assert.deepEqual(res.json(), { error_code: 404, message: 'Sender not found' })
      }
      const bad = await requestCode(account, 'not-an-address')
      assert.deepEqual(bad.json(), { error_code: 422, message: 'Argument email is invalid' })
    })

    it('keeps each account\'s senders to itself', async () => {
      const a = await t.account()
      const b = await t.account()
      await add(a, 'shared@example.com', 'A sender')
      await requestCode(a, 'shared@example.com')
      const code = await latestCode(a, 'shared@example.com')

      assert.deepEqual(await list(b), [])
      for (const res of [
        await t.call(b, { method: 'DELETE', url: '/senders', payload: { email: 'shared@example.com' } }),
        await requestCode(b, 'shared@example.com'),
        await activate(b, 'shared@example.com', code),
      ]) {
        assert.equal(res.statusCode, 404)
        assert.deepEqual(res.json(), { error_code: 404, message: 'Sender not found' })
      }
      assert.equal((await codeEmails(b)).length, 0)
      assert.deepEqual(await list(a), [{ email: 'shared@example.com', name: 'A sender', status: 'Not active', is_allowed_for_smtp: true }])

      // B may add the same address: its own sender, with its own code.
      await add(b, 'shared@example.com', 'B sender')
      await requestCode(b, 'shared@example.com')
      if ((await latestCode(b, 'shared@example.com')) !== code) {
        const res = await activate(b, 'shared@example.com', code)
        assert.match(res.json<{ message: string }>().message, /^Wrong activation code/, "A's code does not activate B's sender")
      }
      assert.deepEqual((await activate(a, 'shared@example.com', code)).json(), { result: true, email: 'shared@example.com' })
      assert.deepEqual((await list(b))[0]?.status, 'Not active')
      await assert.rejects(requireActiveSender(t.deps, b.id, 'shared@example.com'), (err) => err instanceof AppError && err.publishedCode === 1003)
    })
  })
}
