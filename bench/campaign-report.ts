// `npm run bench:campaign-report`: the console's campaign report on one campaign of BENCH_MESSAGES (1,000,000)
// messages, on SQLite and on PostgreSQL, in process (app.inject: the route's own time, no network).
//
// The messages are inserted by SQL (the triggers of migration 0014 keep the campaign's counts), with BENCH_OTHERS
// (100,000) messages of a second campaign of the same account after them, so that a walk of the primary key would
// meet them. The campaign's messages: 60 % delivered (2), 25 % opened (3), 5 % clicked (4), 5 % unavailable (8),
// 5 % queued (0); opens spread over 7 days, clicks over 7 days, 12 countries (lib/report-messages.ts).
//
// Each route is called BENCH_REPORT_REQUESTS (30) times in a row after 3 untimed calls; p50 and max are printed.
// Environment: BENCH_MESSAGES, BENCH_OTHERS, BENCH_REPORT_REQUESTS, BENCH_TARGETS (sqlite,postgres).
import { sql } from 'kysely'
import { fmt, positiveNumber, targetsFromEnv } from './lib/env.js'
import { summarize } from './lib/http.js'
import { startTestApp, type TestApp } from '../test/helpers/app.js'
import { campaignSetup, createCampaign } from '../test/helpers/campaigns.js'
import { isPostgres } from '../src/storage/dialect.js'
import { insertReportMessages } from './lib/report-messages.js'
import type { Dialect } from '../src/storage/db.js'

const MESSAGES = positiveNumber('BENCH_MESSAGES', 1_000_000)
const OTHERS = positiveNumber('BENCH_OTHERS', 100_000)
const REQUESTS = positiveNumber('BENCH_REPORT_REQUESTS', 30)
const TARGETS = targetsFromEnv<Dialect>(['sqlite', 'postgres'])

async function main(): Promise<void> {
  const rows: string[] = []
  for (const dialect of TARGETS) rows.push(...(await benchTarget(dialect)))
  console.log('')
  console.log(`| database | route (campaign of ${fmt(MESSAGES, 0)} messages) | p50 (ms) | max (ms) |`)
  console.log('|---|---|---:|---:|')
  for (const row of rows) console.log(row)
  process.exit(0)
}

async function benchTarget(dialect: Dialect): Promise<string[]> {
  const t = await startTestApp(dialect, { apiRatePerSecond: 0, campaignsPerHour: 100 })
  try {
    const setup = await campaignSetup(t, 1)
    const later = new Date(t.clock.now + 86_400_000).toISOString().slice(0, 19).replace('T', ' ')
    const id = (await createCampaign(t, setup, { send_date: later })).json<{ id: number }>().id
    const other = (await createCampaign(t, setup, { send_date: later })).json<{ id: number }>().id
    const t0 = Math.floor(t.clock.now / 1000) * 1000
    let started = performance.now()
    await insertReportMessages(t.deps.db, { campaignId: id, accountId: setup.account.id, count: MESSAGES, t0 })
    await insertReportMessages(t.deps.db, { campaignId: other, accountId: setup.account.id, count: OTHERS, t0 })
    if (isPostgres(t.deps.db)) await sql`vacuum analyze messages`.execute(t.deps.db)
    else await sql`analyze`.execute(t.deps.db)
    console.log(`${dialect}: ${fmt(MESSAGES + OTHERS, 0)} messages inserted in ${fmt((performance.now() - started) / 1000, 1)} s`)

    const lastPage = await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}/recipients?limit=100&status=8&after=${Number.MAX_SAFE_INTEGER - 1}` })
    if (lastPage.json<unknown[]>().length !== 0) throw new Error('a page after the last id is not empty')
    const deepAfter = await idNearEnd(t, id)
    const routes = [
      `/campaigns/${id}`,
      `/campaigns/${id}/countries`,
      `/campaigns/${id}/referrals`,
      `/campaigns/${id}/recipients?limit=51`,
      `/campaigns/${id}/recipients?limit=51&after=${deepAfter}`,
      `/campaigns/${id}/recipients?limit=51&status=8`,
      `/campaigns/${id}/recipients?limit=51&status=8&after=${deepAfter}`,
      `/campaigns/${id}/timeline?bucket=hour`,
      `/campaigns/${id}/timeline?bucket=day`,
    ]
    const out: string[] = []
    for (const url of routes) {
      const times: number[] = []
      for (let i = 0; i < REQUESTS + 3; i++) {
        started = performance.now()
        const res = await t.call(setup.account, { method: 'GET', url })
        const ms = performance.now() - started
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`)
        if (i >= 3) times.push(ms)
      }
      const s = summarize(times)
      console.log(`  ${url}: p50 ${fmt(s.p50Ms, 2)} ms, max ${fmt(s.maxMs, 2)} ms`)
      out.push(`| ${dialect} | ${url.replace(String(id), '{id}').replace(String(deepAfter), 'N')} | ${fmt(s.p50Ms, 2)} | ${fmt(s.maxMs, 2)} |`)
    }
    return out
  } finally {
    await t.close()
  }
}

/** The id of the campaign's 100th message from its end. */
async function idNearEnd(t: TestApp, campaignId: number): Promise<number> {
  const row = await t.deps.db.selectFrom('messages').select('id').where('campaign_id', '=', campaignId).orderBy('id', 'desc').offset(100).limit(1).executeTakeFirstOrThrow()
  return Number(row.id)
}

await main()
