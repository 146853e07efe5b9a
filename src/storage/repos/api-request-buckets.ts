// The shared half of the per-account request limit: one token bucket per account (migration 0016), which every API
// process takes whole requests from with one atomic statement. The row is refilled by the time since its last take
// and taken from in the same upsert, so two processes taking at once are serialised by the row's lock (PostgreSQL)
// or the one writer (SQLite) and can never both be given the same tokens.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { isPostgres } from '../dialect.js'
import type { Database } from '../tables.js'

export interface TokenTake {
  accountId: number
  /** Whole requests wanted; fewer are given when fewer are left. */
  want: number
  ratePerSecond: number
  burst: number
  now: number
}

export interface TokensTaken {
  granted: number
  /** Thousandths of a request left in the shared bucket after this take. */
  milliTokensLeft: number
}

/** Takes up to `want` whole requests from the account's bucket, which holds `burst` at most and refills at the rate. */
export async function takeRequestTokens(db: Kysely<Database>, take: TokenTake): Promise<TokensTaken> {
  const [least, greatest] = isPostgres(db) ? [sql.raw('least'), sql.raw('greatest')] : [sql.raw('min'), sql.raw('max')]
  const int = (value: number): RawBuilder<number> => sql<number>`cast(${value} as bigint)`
  const burstMilli = take.burst * 1000
  // A clock behind the last take's (another host's) refills nothing rather than taking tokens back.
  const elapsedMs = sql`${greatest}(0, ${int(take.now)} - api_request_buckets.refilled_at)`
  // Requests per second are thousandths of a request per millisecond: whole numbers throughout.
  const available = sql`${least}(${int(burstMilli)}, api_request_buckets.milli_tokens + ${elapsedMs} * ${int(take.ratePerSecond)})`
  const granted = sql<number>`${least}(${int(take.want)}, ${available} / 1000)`
  const firstGrant = Math.min(take.want, take.burst)
  const row = await db
    .insertInto('api_request_buckets')
    .values({ account_id: take.accountId, milli_tokens: burstMilli - firstGrant * 1000, refilled_at: take.now, granted: firstGrant })
    .onConflict((conflict) =>
      conflict.column('account_id').doUpdateSet({
        // Every expression reads the row as it was before this statement (on both databases).
        granted,
        milli_tokens: sql<number>`${available} - ${granted} * 1000`,
        refilled_at: sql<number>`${greatest}(api_request_buckets.refilled_at, ${int(take.now)})`,
      }),
    )
    .returning(['granted', 'milli_tokens'])
    .executeTakeFirstOrThrow()
  return { granted: Number(row.granted), milliTokensLeft: Number(row.milli_tokens) }
}
