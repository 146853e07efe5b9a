// A campaign's counts (campaign_counts, kept by triggers on messages: migration 0014) always equal a count of its
// message rows per channel and status, with how many were sent, opened, clicked and unsubscribed: after each kind
// of change every writer makes (the copy, claims, recorded outcomes, a fenced-off stale claim, opens, clicks,
// unsubscribes, bounces, SMS receipts, Viber reports, button clicks and live times, cancels, drops, deletes), after
// a rolled-back transaction, and with many concurrent writers (PostgreSQL folds its rows of differences); also
// for messages written before the migration. Both databases.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Kysely } from 'kysely'
import { DIALECTS, createTestDatabase } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { campaignSetup, createCampaign } from '../../helpers/campaigns.js'
import { assertCountsMatchRows, keptCounts, recountedFromRows } from '../../helpers/campaign-counts.js'
import { smsSetup } from '../../helpers/sms.js'
import { viberSetup } from '../../helpers/viber.js'
import { JobRunner } from '../../../src/dispatcher/jobs.js'
import { campaignJobHandlers } from '../../../src/services/email/campaign-lifecycle.js'
import { cancelCampaign } from '../../../src/services/email/campaigns.js'
import * as messageQueue from '../../../src/storage/repos/message-queue.js'
import * as messages from '../../../src/storage/repos/messages.js'
import * as viberMessages from '../../../src/storage/repos/viber-messages.js'
import { recordReceipts, recordSubmittedParts } from '../../../src/storage/repos/sms-parts.js'
import { deleteSmsCampaign } from '../../../src/storage/repos/sms-campaigns.js'
import { migrateToLatest, migrateUpTo } from '../../../src/storage/migrate.js'
import type { Database } from '../../../src/storage/tables.js'
import { claimDue } from '../../helpers/claims.js'

const { MESSAGE_STATUS } = messages

for (const dialect of DIALECTS) {
  describe(`campaign counts on ${dialect}`, () => {
    let t: TestApp
    let db: Kysely<Database>
    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100 })
      db = t.deps.db
    })
    after(() => t.close())

    const check = (step: string) => assertCountsMatchRows(db, step)
    let claims = 0
    /** Claims the channel's due messages (at most `limit`) for a new lease. */
    const claim = async (channel: 'email' | 'sms' | 'viber', limit = 100) => {
      const token = `claim-${++claims}`
      const claimed = await claimDue(db, { channel, now: t.clock.now, limit, leaseUntil: t.clock.now + 60_000, token })
      return { lease: { token, ids: claimed.map((m) => m.id) }, ids: claimed.map((m) => m.id) }
    }

    it('follow an email campaign: copy, outcomes, a stale claim, opens, clicks, unsubscribes, bounces, a rollback, a cancel', async () => {
      const setup = await campaignSetup(t, 30)
      await t.call(setup.account, { method: 'POST', url: '/blacklist', payload: { emails: Buffer.from(setup.emails[29]!).toString('base64') } })
      const id = (await createCampaign(t, setup)).json<{ id: number }>().id
      const jobs = new JobRunner(t.deps, campaignJobHandlers)
      await jobs.runDue()
      await check('copied: 29 queued, the blacklisted one left out')
      // The same contacts again: every one is already a recipient, so nothing is inserted and nothing counted.
      await messageQueue.snapshotBatch(db, { campaignId: id, accountId: setup.account.id, bookId: setup.bookId, afterId: 0, batch: 100, queued: true, sendAt: t.clock.now, now: t.clock.now })
      await check('a repeated copy inserts nothing')

      const first = await claim('email', 20)
      await check('claimed: attempts and leases are not counted')
      const [a, b, c, d, e, f, ...rest] = first.ids
      const outcomes: messageQueue.MessageOutcome[] = [
        ...rest.map((id) => ({ id, kind: 'sent' as const, captured: false })),
        { id: a!, kind: 'sent', captured: true },
        { id: b!, kind: 'retry', error: '451 later', retryAt: t.clock.now + 1000 },
        { id: c!, kind: 'final', status: 8, error: '550 unknown user' },
        { id: d!, kind: 'final', status: MESSAGE_STATUS.notSent, error: 'the campaign was canceled' },
      ]
      // A claim that lost its lease records nothing: its writes are fenced off, and so are their counts.
      await messageQueue.recordOutcomes(db, { token: 'stale', ids: first.ids }, outcomes, t.clock.now)
      await check('a stale claim wrote nothing')
      await messageQueue.recordOutcomes(db, first.lease, outcomes, t.clock.now)
      await check('outcomes recorded: delivered, captured, retrying, unavailable, not sent')

      assert.deepEqual(await messages.markOpened(db, [{ id: e!, country: 'UA', at: t.clock.now }]), new Set([e!]))
      assert.deepEqual(await messages.markOpened(db, [{ id: e!, country: 'UA', at: t.clock.now }]), new Set())
      await messages.markClicked(db, [{ id: f!, at: t.clock.now }])
      await messages.markClicked(db, [{ id: e!, at: t.clock.now }])
      await messages.markUnsubscribed(db, rest[0]!, t.clock.now)
      await messages.markReported(db, rest[1]!, { status: 6, error: 'no such user', now: t.clock.now })
      await messages.markOpened(db, [{ id: rest[1]!, country: null, at: t.clock.now }])
      await check('opened, clicked (with and without an open), unsubscribed, bounced after sending')

      // A transaction that changed messages and then failed leaves the counts as they were.
      await assert.rejects(
        db.transaction().execute(async (tx) => {
          await messages.markOpened(tx, [{ id: rest[2]!, country: 'PL', at: t.clock.now }])
          await messageQueue.endUnsent(tx, id, t.clock.now)
          throw new Error('crash')
        }),
        /crash/,
      )
      await check('a rolled-back transaction counts nothing')

      t.clock.advance(2000)
      const second = await claim('email')
      await messageQueue.recordOutcomes(db, second.lease, second.ids.map((id) => ({ id, kind: 'sent' as const, captured: false })), t.clock.now)
      await check('the retry and the rest sent')

      // Cancels: one campaign while copying, one with messages queued and some in flight under a lease.
      const copying = (await createCampaign(t, setup)).json<{ id: number }>().id
      await cancelCampaign(t.deps, setup.account.id, copying)
      await jobs.runDue()
      const queued = (await createCampaign(t, setup)).json<{ id: number }>().id
      await jobs.runDue()
      const inFlight = await claim('email', 5)
      await cancelCampaign(t.deps, setup.account.id, queued)
      await check('canceled: the unsent end as not sent, those in flight stay theirs')
      await messageQueue.recordOutcomes(db, inFlight.lease, inFlight.ids.map((id) => ({ id, kind: 'final' as const, status: MESSAGE_STATUS.notSent, error: 'the campaign was canceled' })), t.clock.now)
      await messageQueue.dropLastCopied(db, queued, 3)
      await check('the batch in flight recorded, the last copied dropped')
    })

    it('follow SMS campaigns: parts, receipts before and after the submit, a failed part, a delete', async () => {
      const setup = await smsSetup(t)
      const send = async (phones: string[]) => {
        const answer = await t.call(setup.account, { method: 'POST', url: '/sms/send', payload: { sender: setup.sender, body: 'Sale today', phones } })
        assert.equal(answer.statusCode, 200, answer.body)
        return answer.json<{ data: { id: number } } | { id: number }>()
      }
      await send(['447400100001', '447400100002', '447400100003', '447400100004'])
      await check('SMS messages stored')
      const { lease, ids } = await claim('sms')
      await recordReceipts(db, [{ providerId: 'p-1', state: 'delivered', final: true, at: t.clock.now }], t.clock.now)
      await messageQueue.recordOutcomes(db, lease, [
        ...ids.slice(0, 3).map((id) => ({ id, kind: 'submitted' as const, captured: false })),
        { id: ids[3]!, kind: 'final' as const, status: 8, error: 'refused' },
      ], t.clock.now)
      await recordSubmittedParts(db, ids.slice(0, 3).map((id, i) => ({ messageId: id, providerIds: [`p-${i + 1}`] })), t.clock.now)
      await check('submitted; the receipt that came first applied')
      await recordReceipts(db, [
        { providerId: 'p-2', state: 'delivered', final: true, at: t.clock.now },
        { providerId: 'p-3', state: 'undeliverable', final: true, error: '001', at: t.clock.now },
      ], t.clock.now)
      await check('delivered and undeliverable receipts')

      const second = await send(['447400100005'])
      const campaignId = 'data' in second ? second.data.id : second.id
      const messagesOf = await db.selectFrom('messages').select('campaign_id').where('address', '=', '447400100005').executeTakeFirstOrThrow()
      await deleteSmsCampaign(db, Number(messagesOf.campaign_id))
      await check(`a deleted campaign (${campaignId}) leaves no counts`)
      assert.equal((await db.selectFrom('campaign_counts').select('campaign_id').where('campaign_id', '=', Number(messagesOf.campaign_id)).execute()).length, 0)
    })

    it('follow a Viber campaign: reports before and after the recording, reads, clicks, live times ending', async () => {
      const setup = await viberSetup(t)
      const answer = await t.call(setup.account, {
        method: 'POST',
        url: '/viber',
        payload: { task_name: 'Sale', message_type: 2, sender_id: setup.senderId, message_live_time: 60, send_date: 'now', message: 'Sale today', recipients: [447400200001, 447400200002, 447400200003, 447400200004, 447400200005] },
      })
      assert.equal(answer.statusCode, 200, answer.body)
      await check('Viber messages stored')
      const { lease, ids } = await claim('viber')
      const [a, b, c, d, e] = ids
      await viberMessages.storeReports(db, [{ messageId: a!, state: 'delivered' }], t.clock.now)
      await messageQueue.recordOutcomes(db, lease, ids.map((id) => ({ id, kind: 'awaiting' as const, captured: false, providerId: `v-${id}`, until: t.clock.now + 60_000 })), t.clock.now)
      await viberMessages.applyReports(db, ids, t.clock.now)
      await check('recorded as sent; the report that came first applied')
      await viberMessages.storeReports(db, [{ messageId: b!, state: 'read' }, { messageId: b!, state: 'delivered' }, { messageId: c!, state: 'rejected' }], t.clock.now)
      await viberMessages.recordButtonClick(db, d!, t.clock.now)
      await check('read, rejected, clicked')
      t.clock.advance(61_000)
      assert.equal((await viberMessages.expireUndelivered(db, t.clock.now, 100)).map((m) => m.id).includes(e!), true)
      await check('live time ended without a report')
    })

    it('stay exact with many writers at once, in a few rows per key', async () => {
      const setup = await campaignSetup(t, 200)
      const id = (await createCampaign(t, setup)).json<{ id: number }>().id
      await new JobRunner(t.deps, campaignJobHandlers).runDue()
      const { lease, ids } = await claim('email', 200)
      await messageQueue.recordOutcomes(db, lease, ids.map((id) => ({ id, kind: 'sent' as const, captured: false })), t.clock.now)
      // 200 opens and 100 clicks, one transaction each, 8 at a time: on PostgreSQL each appends a row of differences.
      let next = 0
      const writer = async () => {
        while (next < ids.length) {
          const i = next++
          await db.transaction().execute(async (tx) => {
            await messages.markOpened(tx, [{ id: ids[i]!, country: null, at: t.clock.now }])
            if (i % 2 === 0) await messages.markClicked(tx, [{ id: ids[i]!, at: t.clock.now }])
          })
        }
      }
      await Promise.all(Array.from({ length: 8 }, writer))
      await check('after 300 concurrent writes')
      const rows = await db.selectFrom('campaign_counts').select('campaign_id').where('campaign_id', '=', id).execute()
      // SQLite keeps one row per key the campaign's messages had (0, 2, 3, 4); PostgreSQL appends rows and folds a
      // campaign's once there are more than 64 (plus those of transactions in flight while it folds).
      assert.ok(rows.length <= (dialect === 'sqlite' ? 4 : 64 + 8 * 2), `${rows.length} rows`)
    })
  })

  describe(`campaign counts of messages written before migration 0014, on ${dialect}`, () => {
    it('are counted by the migration', async () => {
      const database = await createTestDatabase(dialect, { migrate: false })
      try {
        const db = database.storage.db
        await migrateUpTo(db as never, '0013_viber')
        const now = Date.now()
        const account = await db.insertInto('accounts').values({ name: 'a', client_id: 'old', client_secret_hash: 'x', currency: 'USD', plan: 'pro', created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow()
        const campaign = await db
          .insertInto('campaigns')
          .values({ account_id: account.id, name: 'old', status: 3, sender_name: 's', sender_email: 's@example.com', subject: 's', body: 'b', list_ids: '[]', send_at: now, currency: 'USD', created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow()
        const row = (i: number, status: number, times: Partial<Record<'sent_at' | 'opened_at' | 'clicked_at', number>>) => ({ campaign_id: campaign.id, account_id: account.id, address: `r${i}@example.com`, status, updated_at: now, ...times })
        await db.insertInto('messages').values([row(1, 2, { sent_at: now }), row(2, 3, { sent_at: now, opened_at: now }), row(3, 4, { sent_at: now, opened_at: now, clicked_at: now }), row(4, 13, {}), row(5, 2, { sent_at: now })]).execute()
        await migrateToLatest(db as never)
        assert.deepEqual(await keptCounts(db), await recountedFromRows(db))
        assert.equal((await keptCounts(db)).length, 4)
      } finally {
        await database.drop()
      }
    })
  })
}
