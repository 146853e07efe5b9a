// The shared half of the send rates (TIDINGS_EMAIL_RATE, TIDINGS_EMAIL_ACCOUNT_RATE and their SMS/Viber peers): one
// token bucket per channel (account 0) and per channel and account (migration 0018), which every worker takes whole
// units from with one atomic statement, as repos/api-request-buckets.ts does for API requests. The row is refilled by
// the time since its last take and taken from in the same upsert, so two workers taking at once are serialised by
// the row's lock (PostgreSQL) or the one writer (SQLite) and are never both given the same units.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { isPostgres } from '../dialect.js'
import type { Database } from '../tables.js'

/** The bucket of every account together. */
export const ALL_ACCOUNTS = 0

export const MICRO = 1_000_000

export interface SendRateBucket {
  channel: string
  /** An account's bucket, or ALL_ACCOUNTS */
  accountId: number
  /** Units a second (messages, SMS parts); more than 0 */
  ratePerSecond: number
  /** Whole units the bucket holds at most, after a quiet spell */
  capacity: number
}

export interface SendTokensTaken {
  granted: number
  /** Millionths of a unit left in the shared bucket after this take */
  microTokensLeft: number
  /** Millionths of a unit the bucket refills per millisecond */
  microPerMs: number
}

/** Millionths of a unit per ms: units a second are thousandths of a unit per ms. At least 1 (a rate of 0.001/s). */
export function microPerMs(ratePerSecond: number): number {
  return Math.max(1, Math.round(ratePerSecond * 1000))
}

/** Takes up to `want` whole units from the bucket, which holds `capacity` at most and refills at the rate. */
export async function takeSendTokens(db: Kysely<Database>, bucket: SendRateBucket, want: number, now: number): Promise<SendTokensTaken> {
  const [least, greatest] = isPostgres(db) ? [sql.raw('least'), sql.raw('greatest')] : [sql.raw('min'), sql.raw('max')]
  const int = (value: number): RawBuilder<number> => sql<number>`cast(${value} as bigint)`
  const perMs = microPerMs(bucket.ratePerSecond)
  const capacityMicro = bucket.capacity * MICRO
  // A bucket idle longer than this is full: capping the elapsed time keeps elapsed × rate inside a bigint after years.
  const fillMs = Math.ceil(capacityMicro / perMs)
  // A clock behind the last take's (another host's) refills nothing rather than taking units back.
  const elapsedMs = sql`${least}(${int(fillMs)}, ${greatest}(0, ${int(now)} - send_rate_buckets.refilled_at))`
  const available = sql`${least}(${int(capacityMicro)}, send_rate_buckets.micro_tokens + ${elapsedMs} * ${int(perMs)})`
  const granted = sql<number>`${least}(${int(want)}, ${available} / ${int(MICRO)})`
  const firstGrant = Math.min(want, bucket.capacity)
  const row = await db
    .insertInto('send_rate_buckets')
    .values({ channel: bucket.channel, account_id: bucket.accountId, micro_tokens: capacityMicro - firstGrant * MICRO, refilled_at: now, granted: firstGrant })
    .onConflict((conflict) =>
      conflict.columns(['channel', 'account_id']).doUpdateSet({
        // Every expression reads the row as it was before this statement (on both databases).
        granted,
        micro_tokens: sql<number>`${available} - ${granted} * ${int(MICRO)}`,
        refilled_at: sql<number>`${greatest}(send_rate_buckets.refilled_at, ${int(now)})`,
      }),
    )
    .returning(['granted', 'micro_tokens'])
    .executeTakeFirstOrThrow()
  return { granted: Number(row.granted), microTokensLeft: Number(row.micro_tokens), microPerMs: perMs }
}
