// What the console's campaign report reads from a campaign's message rows besides its counts (message-stats.ts):
// its recipients a page at a time, and its first opens and first clicks per UTC hour or day. Both read only index
// ranges of the campaign (migration 0022), however many messages it has: see docs/benchmarks.md "Campaign report".
import { sql, type Kysely } from 'kysely'
import type { Database } from '../tables.js'
import { isPostgres } from '../dialect.js'

export interface RecipientRow {
  id: number
  address: string
  status: number
  sentAt: number | null
  openedAt: number | null
  clickedAt: number | null
  country: string | null
  lastError: string | null
}

export interface RecipientQuery {
  /** Only messages in this status; every status when undefined. */
  status?: number
  /** Keyset: only messages of a greater id (0 for the first page). */
  afterId: number
  limit: number
}

/**
 * A page of a campaign's messages in id order, in one statement (one snapshot: no message twice or missed because
 * it changed status meanwhile). Each status is one range of the (campaign, status, id) index cut at `limit`; the
 * page merges those of `statuses`, the campaign's statuses (from its counts: a handful). An ORDER BY id over the
 * campaign alone would sort every message after `afterId` (1,000,000 on the first page) or walk the primary key
 * through other campaigns' messages.
 */
export async function listRecipients(db: Kysely<Database>, campaignId: number, statuses: readonly number[], query: RecipientQuery): Promise<RecipientRow[]> {
  const asked = query.status === undefined ? statuses : statuses.filter((s) => s === query.status)
  const ranges = asked.map((status, i) => db.selectFrom(rangeOfStatus(db, campaignId, status, query).as(`s${i}`)).selectAll())
  const [first, ...rest] = ranges
  if (!first) return []
  const rows = await rest
    .reduce((union, range) => union.unionAll(range), first)
    .orderBy('id')
    .limit(query.limit)
    .execute()
  return rows.map((r) => ({
    id: Number(r.id),
    address: r.address,
    status: r.status,
    sentAt: numberOrNull(r.sent_at),
    openedAt: numberOrNull(r.opened_at),
    clickedAt: numberOrNull(r.clicked_at),
    country: r.country,
    lastError: r.last_error,
  }))
}

/** The largest bigint: the end of a status's range of the index. */
const MAX_ID = sql<number>`9223372036854775807`

/**
 * The messages of one status after `afterId`, in id order, at most `limit`. On PostgreSQL the range is written as
 * row values of the (campaign, status, id) index, which only that index serves: with `campaign_id = … and status =
 * … and id > …` PostgreSQL costed the campaign's messages as spread evenly among all and walked the primary key from
 * `afterId` through every later message of other campaigns (100,000 after the last page in bench:campaign-report:
 * 25–57 ms, against 0.16 ms for this whole page in EXPLAIN ANALYZE). SQLite reads `id >` as a range of its
 * (campaign, status) index, which ends with the rowid, but not the row values.
 */
function rangeOfStatus(db: Kysely<Database>, campaignId: number, status: number, query: RecipientQuery) {
  const columns = db.selectFrom('messages').select(['id', 'address', 'status', 'sent_at', 'opened_at', 'clicked_at', 'country', 'last_error'])
  if (!isPostgres(db)) {
    return columns.where('campaign_id', '=', campaignId).where('status', '=', status).where('id', '>', query.afterId).orderBy('id').limit(query.limit)
  }
  return columns
    .where((eb) => {
      const key = eb.refTuple('campaign_id', 'status', 'id')
      return eb.and([eb(key, '>', eb.tuple(campaignId, status, query.afterId)), eb(key, '<=', eb.tuple(campaignId, status, MAX_ID as never))])
    })
    .orderBy('campaign_id')
    .orderBy('status')
    .orderBy('id')
    .limit(query.limit)
}

function numberOrNull(value: number | string | bigint | null): number | null {
  return value === null ? null : Number(value)
}

export interface TimelineBucket {
  /** Epoch ms of the bucket's start (a whole UTC hour or day). */
  at: number
  opens: number
  clicks: number
}

/**
 * A campaign's first opens and first clicks (messages.opened_at, clicked_at: tracking keeps no later ones) per
 * bucket of `bucketMs` from `fromMs`, the first `limit` buckets that have any. Each series is one grouped range
 * of its partial index (migration 0022: only opened, or clicked, messages are in it).
 */
export async function timeline(db: Kysely<Database>, campaignId: number, query: { bucketMs: number; fromMs: number; limit: number }): Promise<TimelineBucket[]> {
  const [opens, clicks] = await Promise.all([countsPerBucket(db, campaignId, 'opened_at', query), countsPerBucket(db, campaignId, 'clicked_at', query)])
  const buckets = new Map<number, TimelineBucket>()
  for (const [at, count] of opens) buckets.set(at, { at, opens: count, clicks: 0 })
  for (const [at, count] of clicks) {
    const bucket = buckets.get(at)
    if (bucket) bucket.clicks = count
    else buckets.set(at, { at, opens: 0, clicks: count })
  }
  // The first `limit` of the union: every one of them is among the first `limit` of each series it has counts in.
  return [...buckets.values()].sort((a, b) => a.at - b.at).slice(0, query.limit)
}

async function countsPerBucket(
  db: Kysely<Database>,
  campaignId: number,
  column: 'opened_at' | 'clicked_at',
  query: { bucketMs: number; fromMs: number; limit: number },
): Promise<[number, number][]> {
  const at = sql<number>`${sql.ref(column)} - ${sql.ref(column)} % ${query.bucketMs}`
  const { rows } = await sql<{ at: number | string; count: number | string }>`
    select ${at} as at, count(*) as count from messages
    where campaign_id = ${campaignId} and ${sql.ref(column)} >= ${query.fromMs}
    group by 1 order by 1 limit ${query.limit}`.execute(db)
  return rows.map((r) => [Number(r.at), Number(r.count)])
}
