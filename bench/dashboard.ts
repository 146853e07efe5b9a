// `npx tsx bench/dashboard.ts`: GET /statistics/email/daily (the console's dashboard) on an account holding
// BENCH_DASHBOARD_MESSAGES email messages (default 1,000,000) spread over 35 UTC days, beside another account's
// 100,000, on SQLite and PostgreSQL (TIDINGS_TEST_DATABASE_URL, or an embedded server). The rows are written straight
// into the tables (campaign_counts' triggers count them, as they would any writer's), every answer is checked against
// a count of the rows, and the route is timed in process (inject, 7 calls after 2 unmeasured, median).
// Then what 0020's triggers cost a sending worker: BENCH_DASHBOARD_SENDS queued rows claimed and recorded as sent 50 a
// statement (as message-sender.ts's batches: a claim's update, then recordOutcomes' update), with the triggers and
// without, three times each, in turn: the CPU time of this process and of the PostgreSQL backend per message.
import assert from 'node:assert/strict'
import { sql, type Kysely } from 'kysely'
import { startTestApp, type TestApp } from '../test/helpers/app.js'
import type { Database } from '../src/storage/tables.js'
import type { Dialect } from '../src/storage/db.js'
import type { DailyEmailStatistics } from '../src/services/email/daily-statistics.js'
import { DAY_MS } from '../src/storage/repos/email-days.js'
import { cpuSeconds } from './lib/proc-stats.js'

const MESSAGES = Number(process.env.BENCH_DASHBOARD_MESSAGES ?? 1_000_000)
const SENDS = Number(process.env.BENCH_DASHBOARD_SENDS ?? 20_000)
const TARGETS = (process.env.BENCH_TARGETS ?? 'sqlite,postgres').split(',') as Dialect[]
const CAMPAIGNS = 20

async function campaignsOf(db: Kysely<Database>, accountId: number, now: number): Promise<number> {
  const ids: number[] = []
  for (let i = 0; i < CAMPAIGNS; i++) {
    const row = await db
      .insertInto('campaigns')
      .values({ account_id: accountId, name: `c${i}`, status: 3, sender_name: 'N', sender_email: 'n@x.example', subject: 's', body: 'b', list_ids: '[]', send_at: now, currency: 'USD', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow()
    ids.push(Number(row.id))
  }
  return ids[0]!
}

/**
 * `count` messages of the account: i % 100 decides what became of message i (5 % queued, 2 % refused at once, 1 %
 * bounced later, 1 % complaints, 30 % opened of which 5 % clicked, the rest delivered), i % 35 its day.
 */
async function insertMessages(db: Kysely<Database>, dialect: Dialect, accountId: number, firstCampaign: number, count: number, now: number): Promise<void> {
  const series = dialect === 'postgres' ? sql`select generate_series(1, ${count})::bigint as i` : sql`with recursive s(i) as (select 1 union all select i + 1 from s where i < ${count}) select i from s`
  const at = sql`(${sql.lit(now)} - (i % 35) * ${sql.lit(DAY_MS)} - (i % 1000) * 1000)`
  const k = sql`(i % 100)`
  await sql`
    insert into messages (campaign_id, account_id, address, channel, status, queued, next_attempt_at, sent_at, opened_at, clicked_at, updated_at)
    select ${firstCampaign} + i % ${CAMPAIGNS}, ${accountId}, 'r' || i || '@a${sql.raw(String(accountId))}.example', 'email',
      case when ${k} < 5 then 0 when ${k} < 7 then 8 when ${k} < 8 then 6 when ${k} < 9 then 11 when ${k} < 14 then 4 when ${k} < 39 then 3 else 2 end,
      case when ${k} < 5 then 1 else 0 end, ${sql.lit(now)},
      case when ${k} < 7 then null else ${at} end,
      case when ${k} between 8 and 38 then ${at} + 60000 else null end,
      case when ${k} between 9 and 13 then ${at} + 120000 else null end,
      ${at}
    from (${series}) s`.execute(db)
}

function expected(now: number, count: number, days: number) {
  const today = Math.floor(now / DAY_MS)
  const out = { sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, complained: 0, queued: 0, todaySent: 0 }
  for (let i = 1; i <= count; i++) {
    const k = i % 100
    if (k < 5) {
      out.queued++
      continue
    }
    const day = Math.floor((now - (i % 35) * DAY_MS - (i % 1000) * 1000) / DAY_MS)
    if (day < today - days + 1) continue
    out.sent++
    if (day === today) out.todaySent++
    if (k < 8) out.bounced++
    else out.delivered++
    if (k === 8) out.complained++
    if (k >= 8 && k <= 38) out.opened++
    if (k >= 9 && k <= 13) out.clicked++
  }
  return out
}

async function timed(t: TestApp, account: Awaited<ReturnType<TestApp['account']>>, url: string): Promise<{ ms: number; body: DailyEmailStatistics }> {
  const times: number[] = []
  let body: DailyEmailStatistics | undefined
  for (let i = 0; i < 9; i++) {
    const start = process.hrtime.bigint()
    const res = await t.call(account, { method: 'GET', url })
    const ms = Number(process.hrtime.bigint() - start) / 1e6
    assert.equal(res.statusCode, 200, res.body)
    body = res.json<DailyEmailStatistics>()
    if (i >= 2) times.push(ms)
  }
  times.sort((a, b) => a - b)
  return { ms: times[Math.floor(times.length / 2)]!, body: body! }
}

async function sendCost(db: Kysely<Database>, dialect: Dialect, accountId: number, now: number): Promise<{ withTriggers: number[]; without: number[] }> {
  // The rows to "send": a fresh campaign's SENDS queued messages.
  const first = await campaignsOf(db, accountId, now)
  const series = dialect === 'postgres' ? sql`select generate_series(1, ${SENDS})::bigint as i` : sql`with recursive s(i) as (select 1 union all select i + 1 from s where i < ${SENDS}) select i from s`
  await sql`insert into messages (campaign_id, account_id, address, channel, status, queued, next_attempt_at, updated_at)
    select ${first}, ${accountId}, 'send' || i || '@x.example', 'email', 0, 1, ${sql.lit(now)}, ${sql.lit(now)} from (${series}) s`.execute(db)
  const ids = (await db.selectFrom('messages').select('id').where('campaign_id', '=', first).orderBy('id').execute()).map((r) => Number(r.id))
  // CPU of this process (SQLite's work is in it) and of the PostgreSQL backend that runs the statements: wall time on a
  // shared machine says more about the neighbours than about the triggers.
  const send = () =>
    db.connection().execute(async (conn) => {
      const backend = dialect === 'postgres' ? Number((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(conn)).rows[0]!.pid) : undefined
      const cpu = () => {
        const own = process.cpuUsage()
        return (own.user + own.system) / 1e6 + (backend === undefined ? 0 : (cpuSeconds(backend) ?? 0))
      }
      const start = cpu()
      for (let i = 0; i < ids.length; i += 50) {
        const batch = ids.slice(i, i + 50)
        await conn.updateTable('messages').set((eb) => ({ locked_until: now + 60_000, lease_token: 'bench', attempts: eb('attempts', '+', 1) })).where('id', 'in', batch).execute()
        await conn.updateTable('messages').set({ status: 2, queued: 0, sent_at: now, last_error: null, provider_id: null, locked_until: null, lease_token: null, updated_at: now }).where('id', 'in', batch).where('queued', '=', 1).execute()
      }
      const us = ((cpu() - start) * 1e6) / ids.length
      await conn.updateTable('messages').set({ status: 0, queued: 1, sent_at: null, attempts: 0 }).where('campaign_id', '=', first).execute()
      if (dialect === 'postgres') await sql`vacuum messages`.execute(conn)
      return us
    })
  const triggers = dialect === 'postgres' ? ['messages_days_insert', 'messages_days_update', 'messages_days_delete'] : ['messages_days_insert', 'messages_days_update_old', 'messages_days_update_new', 'messages_days_delete']
  const dropTriggers = async () => {
    for (const name of triggers) await sql`drop trigger ${sql.raw(name)}${sql.raw(dialect === 'postgres' ? ' on messages' : '')}`.execute(db)
  }
  const migration = await import('../src/storage/migrations/0020_email_days.js')
  const result = { withTriggers: [] as number[], without: [] as number[] }
  for (let round = 0; round < 3; round++) {
    result.withTriggers.push(await send())
    await dropTriggers()
    result.without.push(await send())
    await (dialect === 'postgres' ? migration.createPostgresTriggers(db as never) : migration.createSqliteTriggers(db as never))
  }
  return result
}

for (const dialect of TARGETS) {
  const t = await startTestApp(dialect, { apiRatePerSecond: 0 })
  try {
    const db = t.deps.db
    const now = t.clock.now
    const who = await t.account('Dashboard')
    const other = await t.account('Other')
    let start = Date.now()
    await insertMessages(db, dialect, who.id, await campaignsOf(db, who.id, now), MESSAGES, now)
    await insertMessages(db, dialect, other.id, await campaignsOf(db, other.id, now), 100_000, now)
    const insertSeconds = (Date.now() - start) / 1000
    start = Date.now()
    // What autovacuum would have done by then.
    await sql`${sql.raw(dialect === 'postgres' ? 'vacuum analyze' : 'analyze')}`.execute(db)
    const kept = await db.selectFrom('email_day_counts').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', who.id).executeTakeFirstOrThrow()
    console.log(`${dialect}: ${kept.n} email_day_counts rows kept for the account`)
    for (const days of [30, 90]) {
      const { ms, body } = await timed(t, who, `/statistics/email/daily?days=${days}`)
      const want = expected(now, MESSAGES, days)
      assert.deepEqual(
        { ...body.period, queued: body.queued, todaySent: body.today.sent },
        want,
      )
      console.log(`${dialect}: ${MESSAGES.toLocaleString('en')} messages (inserted in ${insertSeconds.toFixed(0)} s), days=${days}: ${ms.toFixed(1)} ms (median of 7), ${body.period.sent.toLocaleString('en')} sent in the period`)
    }
    const cost = await sendCost(db, dialect, who.id, now)
    console.log(`${dialect}: claiming and recording ${SENDS.toLocaleString('en')} messages as sent, CPU µs per message: with 0020's triggers ${cost.withTriggers.map((n) => n.toFixed(1)).join(', ')}; without ${cost.without.map((n) => n.toFixed(1)).join(', ')}`)
  } finally {
    await t.close()
  }
}
process.exit(0)
