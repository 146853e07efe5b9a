// The real npm SDK (`sendpulse-api` 1.1.7), unchanged, against a listening server: senders (API.md 4.4), with
// the activation code read from the email queued in the outbox, as the address's owner would read it.
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { call, startSdkHarness, type SdkHarness } from '../../helpers/npm-sdk.js'

for (const dialect of DIALECTS) {
  describe(`the npm SDK's sender methods against the server on ${dialect}`, () => {
    let harness: SdkHarness
    before(async () => {
      harness = await startSdkHarness(dialect)
      await harness.init()
    })
    after(async () => {
      await harness?.close()
    })
    beforeEach(() => {
      harness.exchanges.length = 0
    })

    /** The code in the latest activation email to `email`, parsed out of its text. */
    const emailedCode = async (email: string) => {
      const rows = await harness.testApp.deps.db
        .selectFrom('outbox')
        .select('text')
        .where('account_id', '=', harness.account.id)
        .where('kind', '=', 'sender_code')
        .where('to_email', '=', email)
        .orderBy('id', 'desc')
        .execute()
      const match = /\b(\d{8})\b/.exec(rows[0]?.text ?? '')
      assert.ok(match, `an activation email to ${email}`)
      return match[1]!
    }

    it('adds, lists, activates with the emailed code and removes a sender, with the documented answers', async () => {
      const { sdk } = harness
      assert.deepEqual(await call(sdk.listSenders), [])
      assert.deepEqual(await call(sdk.addSender, 'SDK Sender', 'sdk@example.com'), { result: true })
      assert.deepEqual(await call(sdk.listSenders), [{ email: 'sdk@example.com', name: 'SDK Sender', status: 'Not active', is_allowed_for_smtp: true }])

      assert.deepEqual(await call(sdk.getSenderActivationMail, 'sdk@example.com'), { result: true, email: 'sdk@example.com' })
      const code = await emailedCode('sdk@example.com')
      assert.deepEqual(await call(sdk.activateSender, 'sdk@example.com', code), { result: true, email: 'sdk@example.com' })
      assert.deepEqual(await call(sdk.listSenders), [{ email: 'sdk@example.com', name: 'SDK Sender', status: 'Active', is_allowed_for_smtp: true }])

      assert.deepEqual(await call(sdk.removeSender, 'sdk@example.com'), { result: true })
      assert.deepEqual(await call(sdk.listSenders), [])
      assert.deepEqual(harness.paths(), [
        'GET /senders 200',
        'POST /senders 200',
        'GET /senders 200',
        'GET /senders/sdk@example.com/code 200',
        'POST /senders/sdk@example.com/code 200',
        'GET /senders 200',
        'DELETE /senders 200',
        'GET /senders 200',
      ])
    })

    it('hands errors to the callback as the JSON body: a duplicate, a wrong code, an unknown sender', async () => {
      const { sdk } = harness
      await call(sdk.addSender, 'Twice', 'twice@example.com')
      assert.deepEqual(await call(sdk.addSender, 'Twice', 'twice@example.com'), { error_code: 422, message: 'Sender already exists' })
      await call(sdk.getSenderActivationMail, 'twice@example.com')
      const code = await emailedCode('twice@example.com')
      const wrong = code === '12345678' ? '87654321' : '12345678'
      assert.deepEqual(await call(sdk.activateSender, 'twice@example.com', wrong), {
        error_code: 422,
        message: 'Wrong activation code; 4 attempts left before the sender is locked for an hour',
      })
      assert.deepEqual(await call(sdk.removeSender, 'nobody@example.com'), { error_code: 404, message: 'Sender not found' })
      assert.deepEqual(await call(sdk.getSenderActivationMail, 'nobody@example.com'), { error_code: 404, message: 'Sender not found' })
    })

    it('gets a new token and goes on after a lock expires an hour later (the SDK retries the 401)', async () => {
      const { sdk } = harness
      await call(sdk.addSender, 'Locked', 'locked@example.com')
      await call(sdk.getSenderActivationMail, 'locked@example.com')
      const code = await emailedCode('locked@example.com')
      const wrong = code === '12345678' ? '87654321' : '12345678'
      for (let i = 0; i < 5; i++) await call(sdk.activateSender, 'locked@example.com', wrong)
      const locked = await call<{ message: string }>(sdk.activateSender, 'locked@example.com', code)
      assert.match(locked.message, /^Too many wrong activation codes; sender is locked until/)
      harness.testApp.clock.advance(3_600_000)
      harness.exchanges.length = 0
      assert.deepEqual(await call(sdk.activateSender, 'locked@example.com', code), { result: true, email: 'locked@example.com' })
      assert.deepEqual(harness.paths(), ['POST /senders/locked@example.com/code 401', 'POST /oauth/access_token 200', 'POST /senders/locked@example.com/code 200'])
    })
  })
}
