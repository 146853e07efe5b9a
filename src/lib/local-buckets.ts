// The part of a token bucket shared through the database (the API request limit, the send rates) that one process
// holds: per account, the tokens it took and has not spent yet, until when the shared bucket is known to be short,
// and the take in flight, which every caller of that account waits for instead of asking the database again.

/** Accounts remembered before those with nothing in hand are forgotten (each entry is a few dozen bytes). */
const MAX_ACCOUNTS = 10_000

export interface LocalBucket {
  /** Tokens taken from the shared bucket and not spent yet; below 0, spent ahead of taking (an SMS's parts). */
  inHand: number
  /** Until then (epoch ms) the shared bucket holds too little to take from. */
  emptyUntil: number
  /** The take in flight. */
  taking: Promise<void> | undefined
}

export class LocalBuckets {
  private readonly buckets = new Map<number, LocalBucket>()

  /** `kept`: an account whose entry is never forgotten (the channel-wide bucket of the send rates). */
  constructor(private readonly kept?: number) {}

  find(accountId: number): LocalBucket | undefined {
    return this.buckets.get(accountId)
  }

  of(accountId: number): LocalBucket {
    let bucket = this.buckets.get(accountId)
    if (!bucket) {
      if (this.buckets.size >= MAX_ACCOUNTS) this.forgetIdle()
      bucket = { inHand: 0, emptyUntil: 0, taking: undefined }
      this.buckets.set(accountId, bucket)
    }
    return bucket
  }

  /** Runs `take` for the bucket unless a take is in flight already; either way, resolves when that take is done. */
  refill(bucket: LocalBucket, take: () => Promise<void>): Promise<void> {
    bucket.taking ??= take().finally(() => {
      bucket.taking = undefined
    })
    return bucket.taking
  }

  /** Drops the accounts with nothing in hand or owed and no take in flight: they lose nothing but a Map entry. */
  private forgetIdle(): void {
    for (const [accountId, bucket] of this.buckets) {
      if (bucket.inHand === 0 && !bucket.taking && accountId !== this.kept) this.buckets.delete(accountId)
    }
  }
}
