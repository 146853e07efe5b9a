// Open-pixel and click hits gathered into batches (hits.ts answers and records one). The token is checked first,
// at once: a forged or altered one is answered without waiting and never enters a batch. Hits that come while a
// batch is being stored wait and go together into the next (at most MAX_BATCH), so under load each batch holds the
// requests in flight; on a quiet server a hit is a batch of one, stored at once.
//
// One batch at a time. Measured on PostgreSQL (clicks, 50 connections): 75 µs of the server's CPU a click with one,
// 110–140 µs with two or four, whose batches were smaller for as many statements; and no more clicks a second. It
// was not so while each commit waited for the disk: then four at once answered twice the pixels (lazy-commit.ts).
//
// Durability: a hit is answered only once its batch is committed, so an answered hit is never lost when the server
// stops cleanly (close() waits for the batches it took) or its process is killed; a hit not answered was recorded in
// full or not at all (one transaction). On PostgreSQL the commit does not wait for the disk: a crash of the database
// server or of the machine may lose the hits of its last 0.6 s, as issue 19 allows (storage/repos/lazy-commit.ts).
import { AppError } from '../services/errors.js'
import { isDatabaseUnavailable } from '../storage/db.js'
import { messageIdOfToken } from './message-links.js'
import { verifyingKeys } from './signing-key.js'
import { answerAndRecord, CampaignRows, type Hit, type HitAnswer } from './hits.js'
import type { Deps } from '../services/types.js'

/** Hits of one transaction at most: what a flood holds in one batch, and how long the batch's first hit waits. */
const MAX_BATCH = 500
/**
 * Hits waiting for a batch at most; beyond, a hit is refused (503, not counted) rather than held. Only requests in
 * flight wait (a forged token never does), so this bounds what a flood of valid tokens over thousands of
 * connections can hold: 10,000 hits waiting and MAX_BATCH being stored, about 2 MB.
 */
const MAX_WAITING = 10_000
/** How long a refused hit should wait before it comes again: a batch takes milliseconds. */
const RETRY_AFTER_SECONDS = '1'

interface Waiting {
  hit: Hit
  resolve: (answer: HitAnswer) => void
  reject: (err: unknown) => void
}

export class TrackingHits {
  private readonly waiting: Waiting[] = []
  private storing: Promise<void> | undefined
  private keys: readonly Buffer[] | undefined
  private readonly campaigns = new CampaignRows()

  constructor(
    private readonly deps: Deps,
    private readonly limits: { maxWaiting: number } = { maxWaiting: MAX_WAITING },
  ) {}

  /** The pixel of the token's message was loaded from `ip`; false when the token names no message. */
  async open(token: string, ip: string): Promise<boolean> {
    const messageId = messageIdOfToken(this.keys ?? (await this.verifyingKeys()), token)
    if (messageId === undefined) return false
    return (await this.take({ kind: 'open', messageId, ip, at: this.deps.now() })) === true
  }

  /** Link `index` of the token's message was followed: where it leads, undefined when the message had no such link. */
  async click(token: string, index: number): Promise<string | undefined> {
    const messageId = messageIdOfToken(this.keys ?? (await this.verifyingKeys()), token)
    if (messageId === undefined) return undefined
    const answer = await this.take({ kind: 'click', messageId, index, at: this.deps.now() })
    return typeof answer === 'string' ? answer : undefined
  }

  /** Resolves once every hit taken is answered: the server closes only after its last requests are answered. */
  async close(): Promise<void> {
    while (this.storing) await this.storing
  }

  /**
   * The keys, read once: the configured ones never change while the process runs, and the generated one is
   * created once per database and never replaced (signing-key.ts).
   */
  private async verifyingKeys(): Promise<readonly Buffer[]> {
    this.keys ??= await verifyingKeys(this.deps)
    return this.keys
  }

  private take(hit: Hit): Promise<HitAnswer> {
    if (this.waiting.length >= this.limits.maxWaiting) {
      return Promise.reject(new AppError('unavailable', 'Too many tracking hits at once, try again later', { headers: { 'retry-after': RETRY_AFTER_SECONDS } }))
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ hit, resolve, reject })
      // setImmediate: the requests read in this turn of the event loop go into the first batch together.
      this.storing ??= new Promise<void>((started) => setImmediate(started)).then(() => this.storeWaiting())
    })
  }

  /** Stores what is waiting, batch after batch, until nothing is. */
  private async storeWaiting(): Promise<void> {
    try {
      while (this.waiting.length > 0) await this.storeBatch(this.waiting.splice(0, MAX_BATCH))
    } finally {
      this.storing = undefined
    }
  }

  /**
   * One transaction for the batch. When it fails, each hit is tried alone, as it was before batches: a hit that
   * cannot be stored (its campaign deleted meanwhile, a deadlock) fails only its own request. Not while the
   * database is away: each would wait for it in turn.
   */
  private async storeBatch(batch: readonly Waiting[]): Promise<void> {
    try {
      const answers = await answerAndRecord(this.deps, this.campaigns, batch.map((w) => w.hit))
      batch.forEach((w, i) => w.resolve(answers[i]))
      return
    } catch (err) {
      if (batch.length === 1 || isDatabaseUnavailable(err)) {
        for (const w of batch) w.reject(err)
        return
      }
      this.deps.log.warn({ err, hits: batch.length }, 'a batch of tracking hits failed; storing them one by one')
    }
    for (const w of batch) {
      try {
        w.resolve((await answerAndRecord(this.deps, this.campaigns, [w.hit]))[0])
      } catch (err) {
        w.reject(err)
      }
    }
  }
}
