// A campaign's messages inserted by SQL, for bench:campaign-report (1,000,000 of them) and the console's screenshots
// (a few): message g's status, times and country follow from g alone; the triggers of migration 0014 keep the
// campaign's counts. g % 20: 0–11 delivered (2), 12–16 opened (3), 17 clicked (4), 18 unavailable (8), 19 queued (0);
// opens spread over `spreadSeconds` (a week) from t0, each click a minute after its open; 12 countries.
import { sql, type Kysely } from 'kysely'
import { isPostgres } from '../../src/storage/dialect.js'
import type { Database } from '../../src/storage/tables.js'

export async function insertReportMessages(
  db: Kysely<Database>,
  m: { campaignId: number; accountId: number; count: number; t0: number; spreadSeconds?: number; domain?: string },
): Promise<void> {
  const spread = sql.lit(m.spreadSeconds ?? 7 * 86_400)
  const t0 = sql.lit(m.t0)
  const numbers = isPostgres(db)
    ? sql`with numbers as (select g from generate_series(1::bigint, ${sql.lit(m.count)}::bigint) as g)`
    : sql`with recursive numbers(g) as (select 1 union all select g + 1 from numbers where g < ${sql.lit(m.count)})`
  await sql`${numbers}
    insert into messages (campaign_id, account_id, address, status, queued, sent_at, opened_at, clicked_at, country, last_error, updated_at)
    select ${sql.lit(m.campaignId)}, ${sql.lit(m.accountId)}, 'reader' || g || '@' || ${sql.lit(m.domain ?? 'bench.example')},
      case when g % 20 < 12 then 2 when g % 20 < 17 then 3 when g % 20 = 17 then 4 when g % 20 = 18 then 8 else 0 end,
      0,
      case when g % 20 < 19 then ${t0} end,
      case when g % 20 between 12 and 17 then ${t0} + (g * 7919 % ${spread}) * 1000 end,
      case when g % 20 = 17 then ${t0} + (g * 7919 % ${spread}) * 1000 + 60000 end,
      case when g % 20 between 12 and 17 then substr('UAPLDEFRUSGBESITNLCZSEFI', cast(1 + 2 * (g % 12) as integer), 2) end,
      case when g % 20 = 18 then '550 5.1.1 no such user' end,
      ${t0}
    from numbers`.execute(db)
}
