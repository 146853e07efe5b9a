// SMS parts and receipts (storage/repos/sms-parts.ts): a receipt matched whether it comes before or after the
// submit's answer is recorded, a message delivered only when every part is, a failed part ending it, a final
// state never replaced by a late intermediate one (also within one batch), and unmatched receipts purged after a
// while; both databases.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { smsSetup, type SmsSetup } from '../../helpers/sms.js'
import * as messageQueue from '../../../src/storage/repos/message-queue.js'
import { purgeUnmatchedReceipts, recordReceipts, recordSubmittedParts } from '../../../src/storage/repos/sms-parts.js'
import { claimDue } from '../../helpers/claims.js'

const TWO_PARTS = 'a'.repeat(200)

for (const dialect of DIALECTS) {
  describe(`SMS parts and receipts on ${dialect}`, () => {
    let t: TestApp
    let setup: SmsSetup
    let next = 447400900000

    before(async () => {
      t = await startTestApp(dialect)
      setup = await smsSetup(t)
    })
    after(async () => {
      await t.close()
    })

    /** A message of a new campaign, submitted (status 1) with the given part ids. */
    async function submitted(providerIds: string[], record = true): Promise<number> {
      const answer = await t.call(setup.account, { method: 'POST', url: '/sms/send', payload: { sender: setup.sender, body: providerIds.length > 1 ? TWO_PARTS : 'Hi', phones: [String(next++)] } })
      assert.equal(answer.statusCode, 200, answer.body)
      const token = `claim-${next}`
      const [message] = await claimDue(t.deps.db, { channel: 'sms', now: t.clock.now, limit: 1, leaseUntil: t.clock.now + 60_000, token })
      await messageQueue.recordOutcomes(t.deps.db, { token, ids: [message!.id] }, [{ id: message!.id, kind: 'submitted', captured: false }], t.clock.now)
      if (record) await recordSubmittedParts(t.deps.db, [{ messageId: message!.id, providerIds }], t.clock.now)
      return message!.id
    }
    const statusOf = async (id: number) => (await t.deps.db.selectFrom('messages').select(['status', 'last_error']).where('id', '=', id).executeTakeFirstOrThrow())
    const receipt = (providerId: string, state: string, final = true, error?: string) => ({ providerId, state, final, error, at: t.clock.now })

    it('matches a receipt that comes after the submit, and one that came before it', async () => {
      const after = await submitted(['p-after'])
      assert.equal(await recordReceipts(t.deps.db, [receipt('p-after', 'delivered')], t.clock.now), 1)
      assert.equal((await statusOf(after)).status, 2)

      assert.equal(await recordReceipts(t.deps.db, [receipt('p-before', 'delivered')], t.clock.now), 0, 'stored, not yet matched')
      const before = await submitted(['p-before'])
      assert.equal((await statusOf(before)).status, 2)
    })

    it('delivers a long text when every part is, and ends it at the first failed part', async () => {
      const long = await submitted(['l-1', 'l-2'])
      await recordReceipts(t.deps.db, [receipt('l-1', 'delivered')], t.clock.now)
      assert.equal((await statusOf(long)).status, 1, 'one part of two')
      await recordReceipts(t.deps.db, [receipt('l-2', 'delivered')], t.clock.now)
      assert.equal((await statusOf(long)).status, 2)

      const failed = await submitted(['f-1', 'f-2'])
      await recordReceipts(t.deps.db, [receipt('f-2', 'undeliverable', true, '001')], t.clock.now)
      assert.deepEqual(await statusOf(failed), { status: 8, last_error: 'undeliverable (err:001)' })
    })

    it('keeps a final state when an intermediate one arrives late', async () => {
      await recordReceipts(t.deps.db, [receipt('late', 'delivered')], t.clock.now)
      await recordReceipts(t.deps.db, [receipt('late', 'enroute', false)], t.clock.now)
      const id = await submitted(['late'])
      assert.equal((await statusOf(id)).status, 2)
    })

    it('purges receipts that never met their submit, and only those', async () => {
      await recordReceipts(t.deps.db, [receipt('orphan', 'delivered')], t.clock.now)
      assert.equal(await purgeUnmatchedReceipts(t.deps.db, t.clock.now - 1), 0, 'not old enough')
      t.clock.advance(8 * 86_400_000)
      assert.equal(await purgeUnmatchedReceipts(t.deps.db, t.clock.now - 7 * 86_400_000), 1)
      const left = await t.deps.db.selectFrom('sms_parts').select('provider_id').where('message_id', 'is', null).execute()
      assert.deepEqual(left, [])
      assert.ok((await t.deps.db.selectFrom('sms_parts').select('provider_id').execute()).length >= 6, 'matched parts stay')
    })

    it('stores a batch holding several receipts of one part as it would store them one after the other', async () => {
      // One statement per batch must not touch a part twice (PostgreSQL refuses that in INSERT … ON CONFLICT).
      const finalFirst = await submitted(['b-1'])
      const finalLast = await submitted(['b-2'])
      const twice = await submitted(['b-3'])
      const batch = [
        receipt('b-1', 'delivered'),
        receipt('b-1', 'enroute', false),
        receipt('b-2', 'enroute', false),
        receipt('b-2', 'undeliverable', true, '002'),
        receipt('b-3', 'delivered'),
        receipt('b-3', 'delivered'),
        receipt('b-unknown', 'accepted', false),
        receipt('b-unknown', 'enroute', false),
      ]
      assert.equal(await recordReceipts(t.deps.db, batch, t.clock.now), 3, 'parts of known messages')
      assert.equal((await statusOf(finalFirst)).status, 2)
      assert.deepEqual(await statusOf(finalLast), { status: 8, last_error: 'undeliverable (err:002)' })
      assert.equal((await statusOf(twice)).status, 2)
      const unknown = await t.deps.db.selectFrom('sms_parts').select(['state', 'message_id']).where('provider_id', '=', 'b-unknown').executeTakeFirstOrThrow()
      assert.deepEqual(unknown, { state: 'accepted', message_id: null }, 'the first intermediate state, waiting for its submit')
    })
  })
}
