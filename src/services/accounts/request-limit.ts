// The per-account request limit (TIDINGS_API_RATE requests a second, TIDINGS_API_BURST at once), one limit for all
// API processes together: the bucket lives in the database (storage/repos/api-request-buckets.ts), and each process
// takes requests from it a chunk at a time — a tenth of a second's worth, 10 at the default 100/s — then spends them
// without asking. So a busy account costs the database ~10 short statements a second per process, and a request
// with tokens in hand costs one Map look-up (GET /addressbooks/{id} answers ~13,000 a second on SQLite, one query
// each: a statement per request would halve that, docs/benchmarks.md "API").
// What a process took and has not spent yet is spent later, whatever the shared bucket holds by then: over any
// window the account gets at most rate × seconds + burst + one chunk per process (e.g. 100/s with 2 processes:
// 20 more than the bucket alone allows).
// A process whose take came back short knows the shared bucket holds less than one request until the next one
// refills, and refuses without asking until then: refusals cost no statement either.
import * as bucketsRepo from '../../storage/repos/api-request-buckets.js'
import type { Deps } from '../types.js'
import { LocalBuckets, type LocalBucket } from '../../lib/local-buckets.js'

/** Each take asks for this many seconds' worth of the rate (at least one request, at most the burst). */
const CHUNK_SECONDS = 0.1

export class RequestLimiter {
  private readonly accounts = new LocalBuckets()
  private readonly chunk: number

  constructor(
    private readonly deps: Pick<Deps, 'db' | 'now'>,
    private readonly ratePerSecond: number,
    private readonly burst: number,
  ) {
    this.chunk = Math.min(burst, Math.max(1, Math.ceil(ratePerSecond * CHUNK_SECONDS)))
  }

  /**
   * 0 when the account's request may go on (and it is counted), else the seconds to wait before the next one may.
   * A promise only when the database must be asked; a request with tokens in hand is answered at once.
   */
  admit(accountId: number): number | Promise<number> {
    const bucket = this.accounts.of(accountId)
    if (bucket.inHand > 0) {
      bucket.inHand--
      return 0
    }
    const waitMs = bucket.emptyUntil - this.deps.now()
    if (waitMs > 0) return Math.ceil(waitMs / 1000)
    return this.accounts.refill(bucket, () => this.take(accountId, bucket)).then(() => this.admit(accountId))
  }

  private async take(accountId: number, bucket: LocalBucket): Promise<void> {
    const now = this.deps.now()
    const { granted, milliTokensLeft } = await bucketsRepo.takeRequestTokens(this.deps.db, {
      accountId,
      want: this.chunk,
      ratePerSecond: this.ratePerSecond,
      burst: this.burst,
      now,
    })
    bucket.inHand += granted
    // Short: less than one request is left; the rate refills a thousandth of a request per millisecond per request/s.
    if (granted < this.chunk) bucket.emptyUntil = now + Math.max(1, Math.ceil((1000 - milliTokensLeft) / this.ratePerSecond))
  }
}
