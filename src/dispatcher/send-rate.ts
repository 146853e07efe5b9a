// A send rate held by every worker together (TIDINGS_EMAIL_RATE and TIDINGS_EMAIL_ACCOUNT_RATE, and their SMS and
// Viber peers): the bucket lives in the database (storage/repos/send-rate-buckets.ts), and each worker takes a tenth
// of a second's worth at a time (5 messages at 50/s), then claims and sends that many without asking again. So a
// sending worker costs the database ~10 short statements a second per bucket, whatever the rate; a rate of 0 costs
// nothing. What a worker took and has not sent yet (its queue ran dry) is sent later, whatever the shared bucket holds
// by then: over any window the rate gives at most rate × seconds + one second's worth + one chunk per worker.
//
// A claim is never bigger than the units in hand (a chunk at most), so a worker sends a steady trickle, not a batch of
// 200 and then 4 s of silence at 50/s. An SMS counts its parts, known only once claimed: a batch may overspend what
// was in hand, and the debt is taken from the shared bucket before the next claim.
// A worker whose take came back short knows when the shared bucket holds a chunk again, and asks no sooner.
import * as buckets from '../storage/repos/send-rate-buckets.js'
import type { Deps } from '../services/types.js'
import { LocalBuckets, type LocalBucket } from '../lib/local-buckets.js'

/** Each take asks for this many seconds' worth of the rate (at least one unit). */
const CHUNK_SECONDS = 0.1

export class SendRate {
  private readonly local = new LocalBuckets(buckets.ALL_ACCOUNTS)
  private readonly chunk: number
  /** The shared bucket holds one second's worth at most, as the per-process limiter before it did. */
  private readonly capacity: number

  /** `ratePerSecond` 0: no limit (allowance() is always `Infinity`, and the database is never asked). */
  constructor(
    private readonly deps: Pick<Deps, 'db' | 'now'>,
    private readonly channel: string,
    private readonly ratePerSecond: number,
  ) {
    this.chunk = Math.max(1, Math.ceil(ratePerSecond * CHUNK_SECONDS))
    this.capacity = Math.max(this.chunk, Math.ceil(ratePerSecond))
  }

  get limited(): boolean {
    return this.ratePerSecond > 0
  }

  /** Whole units this worker may send now for the account (or all accounts): taken from the database when it holds less than one. */
  async allowance(accountId = buckets.ALL_ACCOUNTS): Promise<number> {
    if (!this.limited) return Infinity
    const bucket = this.local.of(accountId)
    if (bucket.inHand < 1 && bucket.emptyUntil <= this.deps.now()) await this.local.refill(bucket, () => this.take(accountId, bucket))
    return Math.max(0, Math.floor(bucket.inHand))
  }

  /** Counts units sent (or about to be). */
  spend(units: number, accountId = buckets.ALL_ACCOUNTS): void {
    if (this.limited) this.local.of(accountId).inHand -= units
  }

  /** Milliseconds until the account's (or all accounts') bucket may give a unit again; 0 when it may now. */
  waitMs(accountId = buckets.ALL_ACCOUNTS): number {
    const bucket = this.local.find(accountId)
    return bucket ? Math.max(0, bucket.emptyUntil - this.deps.now()) : 0
  }

  private async take(accountId: number, bucket: LocalBucket): Promise<void> {
    const now = this.deps.now()
    // A debt (parts sent beyond what was in hand) is paid before the chunk.
    const want = this.chunk + Math.max(0, Math.ceil(-bucket.inHand))
    const taken = await buckets.takeSendTokens(this.deps.db, { channel: this.channel, accountId, ratePerSecond: this.ratePerSecond, capacity: this.capacity }, want, now)
    bucket.inHand += taken.granted
    // Short: the next take waits until the shared bucket holds a whole chunk again. Asked as soon as it held one unit,
    // each take got 1 or 2, and a round of claim, send and record per message or two (~50 ms here) held two workers
    // at 50/s to 43/s.
    if (taken.granted < want) bucket.emptyUntil = now + Math.max(1, Math.ceil((this.chunk * 1_000_000 - taken.microTokensLeft) / taken.microPerMs))
  }
}
