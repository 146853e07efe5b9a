// GET /statistics/email/daily (a Tidings extension for the console's dashboard): an account's emails per UTC day,
// each counted on the day a mail server answered it. A real campaign sent through an SMTP sink that refuses one
// recipient, and rows written as the dispatcher, tracking and bounce reports write them, on both sides of a UTC
// midnight; another account's rows are never counted; a bad `days` is refused with the error body.
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { campaignSetup, createCampaign, dispatcher, type CampaignSetup } from '../../helpers/campaigns.js'
import type { TestAccount } from '../../helpers/factories.js'
import { emailChannel } from '../../../src/delivery/registry.js'
import { MESSAGE_STATUS as S, markClicked, markOpened, markReported } from '../../../src/storage/repos/messages.js'
import type { DailyEmailStatistics } from '../../../src/services/email/daily-statistics.js'

const DAY = 86_400_000
const counts = (sent: number, delivered: number, opened: number, clicked: number, bounced: number, complained: number) => ({ sent, delivered, opened, clicked, bounced, complained })
const NONE = counts(0, 0, 0, 0, 0, 0)

for (const dialect of DIALECTS) {
  describe(`emails per day (GET /statistics/email/daily) on ${dialect}`, () => {
    let t: TestApp
    let sink: SmtpSink
    let setup: CampaignSetup
    let other: TestAccount
    /** 00:00:00.000 UTC today (the test clock's day). */
    let midnight: number

    const daily = async (who: TestAccount, query = '') => {
      const res = await t.call(who, { method: 'GET', url: `/statistics/email/daily${query}` })
      assert.equal(res.statusCode, 200, res.body)
      return res.json<DailyEmailStatistics>()
    }

    /** Rows as their writers leave them: sent_at when the relay took the message, status for what came after. */
    async function insertMessages(accountId: number, rows: { status: number; sent_at?: number; updated_at?: number; opened_at?: number; clicked_at?: number; queued?: number; channel?: string }[]) {
      const now = t.clock.now
      const campaign = await t.deps.db
        .insertInto('campaigns')
        .values({ account_id: accountId, name: 'rows', status: 3, sender_name: 'N', sender_email: 'n@x.example', subject: 's', body: 'b', list_ids: '[]', send_at: now, currency: 'USD', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow()
      const inserted = await t.deps.db
        .insertInto('messages')
        .values(
          // Every row with every column: SQLite has no DEFAULT in a VALUES list, so Kysely would write null.
          rows.map((r, i) => ({ campaign_id: campaign.id, account_id: accountId, address: `row${i}@x.example`, channel: 'email', queued: 0, sent_at: null, opened_at: null, clicked_at: null, updated_at: r.sent_at ?? now, ...r })),
        )
        .returning('id')
        .execute()
      return inserted.map((r) => Number(r.id))
    }

    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100 })
      // Noon UTC: the rows below sit around this day's midnight, and the campaign's messages are sent today.
      midnight = Math.floor(t.clock.now / DAY) * DAY
      t.clock.now = midnight + DAY / 2
      sink = await startSmtpSink()
      sink.refuse = (to) => (to.startsWith('reader0.') ? { code: 550, message: '5.1.1 no such user' } : undefined)
      setup = await campaignSetup(t, 3)
      const created = await createCampaign(t, setup)
      assert.equal(created.statusCode, 200, created.body)
      const delivery = emailChannel({ ...t.deps.config, smtpUrl: sink.url })
      await dispatcher(t, delivery).drain()
      await delivery.close()
      assert.equal(sink.received.length, 2)

      await insertMessages(setup.account.id, [
        // Today, from its first millisecond.
        { status: S.delivered, sent_at: midnight },
        { status: S.markedAsSpam, sent_at: midnight + 1000, opened_at: midnight + 2000 },
        // Yesterday, to its last millisecond: an open and click, a refusal without sent_at.
        { status: S.redirected, sent_at: midnight - 1, opened_at: midnight + 5000, clicked_at: midnight + 6000 },
        { status: 6, updated_at: midnight - 1 },
        // Two days ago, bounced by a report after the relay took it.
        { status: S.unavailable, sent_at: midnight - 2 * DAY, updated_at: midnight },
        // The first of 30 days, and the day before it.
        { status: S.delivered, sent_at: midnight - 29 * DAY },
        { status: S.unsubscribed, sent_at: midnight - 30 * DAY, opened_at: midnight - 30 * DAY },
        // Waiting: queued, waiting for a retry; and never counted: never sent, an SMS.
        { status: S.queued, queued: 1 },
        { status: S.queued, queued: 1 },
        { status: S.retrying, queued: 1, updated_at: midnight },
        { status: S.notSent, updated_at: midnight },
        { status: S.delivered, sent_at: midnight, channel: 'sms' },
      ])
      other = await t.account('Other')
      await insertMessages(other.id, [{ status: S.opened, sent_at: midnight, opened_at: midnight }, { status: S.queued, queued: 1 }])
    })
    after(async () => {
      await sink.close()
      await t.close()
    })

    it("counts each email on the UTC day a server answered it, with what became of it, every day present", async () => {
      const got = await daily(setup.account)
      assert.equal(got.days.length, 30)
      const date = (at: number) => new Date(at).toISOString().slice(0, 10)
      assert.deepEqual(got.days.map((d) => d.date), Array.from({ length: 30 }, (_, i) => date(midnight - (29 - i) * DAY)))
      const byDate = new Map(got.days.map(({ date: d, ...c }) => [d, c]))
      // The campaign's 2 delivered and 1 refused, and 2 rows.
      assert.deepEqual(byDate.get(date(midnight)), counts(5, 4, 1, 0, 1, 1))
      assert.deepEqual(got.today, counts(5, 4, 1, 0, 1, 1))
      assert.deepEqual(byDate.get(date(midnight - DAY)), counts(2, 1, 1, 1, 1, 0))
      assert.deepEqual(byDate.get(date(midnight - 2 * DAY)), counts(1, 0, 0, 0, 1, 0))
      assert.deepEqual(byDate.get(date(midnight - 29 * DAY)), counts(1, 1, 0, 0, 0, 0))
      assert.deepEqual(byDate.get(date(midnight - 3 * DAY)), NONE)
      assert.deepEqual(got.period, counts(9, 6, 2, 1, 3, 1))
      assert.equal(got.queued, 3)

      const longer = await daily(setup.account, '?days=31')
      assert.deepEqual(longer.period, counts(10, 7, 3, 1, 3, 1))
      const one = await daily(setup.account, '?days=1')
      assert.deepEqual(one.days, [{ date: date(midnight), ...counts(5, 4, 1, 0, 1, 1) }])
    })

    it("shows an account its own emails only", async () => {
      const got = await daily(other)
      assert.deepEqual(got.period, counts(1, 1, 1, 0, 0, 0))
      assert.equal(got.queued, 1)
      const fresh = await daily(await t.account('Fresh'), '?days=90')
      assert.equal(fresh.days.length, 90)
      assert.deepEqual(fresh.period, NONE)
      assert.equal(fresh.queued, 0)
      // Anyone without a token gets nothing.
      assert.equal((await t.app.inject({ method: 'GET', url: '/statistics/email/daily' })).statusCode, 401)
    })

    it('follows opens, clicks, bounce reports and deletions, as a recount of the rows does', async () => {
      const who = await t.account('Later')
      const [first, second, third] = await insertMessages(who.id, [{ status: S.delivered, sent_at: midnight + 10 }, { status: S.delivered, sent_at: midnight + 10 }, { status: S.delivered, sent_at: midnight + 10 }])
      await markOpened(t.deps.db, [{ id: first!, country: null, at: t.clock.now }])
      await markClicked(t.deps.db, [{ id: first!, at: t.clock.now }])
      assert.equal(await markReported(t.deps.db, second!, { status: S.unavailable, error: 'bounced', now: t.clock.now }), true)
      await t.deps.db.deleteFrom('messages').where('id', '=', third!).execute()
      assert.deepEqual((await daily(who, '?days=1')).today, counts(2, 1, 1, 1, 1, 0))
      // 70 statements of one row each: PostgreSQL appends a row of differences each and folds the key's rows.
      for (let i = 0; i < 70; i++) await insertMessages(who.id, [{ status: S.delivered, sent_at: midnight + 20 }])
      assert.deepEqual((await daily(who, '?days=1')).today, counts(72, 71, 1, 1, 1, 0))
      const rows = await t.deps.db.selectFrom('email_day_counts').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', who.id).executeTakeFirstOrThrow()
      assert.ok(Number(rows.n) <= 65, `${rows.n} rows kept for one day`)
      const { rows: recount } = await sql<Record<string, number>>`
        select account_id, coalesce(sent_at, updated_at) / ${sql.lit(DAY)} as day, count(*) as sent, count(opened_at) as opened
        from messages where channel = 'email' and status not in (0, 7, 13) group by 1, 2 order by 1, 2`.execute(t.deps.db)
      const kept = await t.deps.db
        .selectFrom('email_day_counts')
        .select((eb) => ['account_id', 'day', eb.fn.sum<number>('sent').as('sent'), eb.fn.sum<number>('opened').as('opened')])
        .groupBy(['account_id', 'day'])
        .having((eb) => eb.fn.sum('sent'), '<>', 0)
        .orderBy('account_id')
        .orderBy('day')
        .execute()
      const plain = (list: Record<string, unknown>[]) => list.map((r) => [r.account_id, r.day, r.sent, r.opened].map(Number))
      assert.deepEqual(plain(kept), plain(recount))
    })

    it('refuses a bad number of days with the error body, and is documented as an extension', async () => {
      for (const days of ['0', '91', '-1', '1.5', 'x']) {
        const res = await t.call(setup.account, { method: 'GET', url: `/statistics/email/daily?days=${days}` })
        assert.equal(res.statusCode, 422, `days=${days}: ${res.body}`)
        const body = res.json<{ error_code: number; message: string }>()
        assert.equal(typeof body.error_code, 'number')
        assert.match(body.message, /days/)
      }
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, { get?: Record<string, unknown> }> }>()
      assert.equal(doc.paths['/statistics/email/daily']?.get?.['x-tidings-extension'], true)
    })
  })
}
