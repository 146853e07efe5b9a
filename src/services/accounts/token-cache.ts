// Access tokens this process has seen, by digest, so most API calls cost no token query. A revocation
// (disable, delete, rotate-secret, revoke-tokens) bumps one counter in the database; each process reads it
// at most once a second and forgets every token when it moved, so a revoked token stops working everywhere
// within GENERATION_CHECK_MS. One cache per server: two servers in one test stand for two processes.
import * as credentialsRepo from '../../storage/repos/credentials.js'
import type { Deps } from '../types.js'

/** How often, at most, a process reads the revocation counter: the delay before a revocation is seen. */
export const GENERATION_CHECK_MS = 1000
/** 10,000 entries of ~150 bytes: a bounded 1.5 MB; when full the cache starts over. */
const MAX_ENTRIES = 10_000

export class TokenCache {
  private readonly entries = new Map<string, { accountId: number; expiresAt: number }>()
  private generation: number | undefined
  private checkedAt = Number.NEGATIVE_INFINITY
  /** Moves when the entries are dropped, so a look-up that started before cannot put a revoked token back. */
  private epoch = 0

  /** The account of a live access token with this digest, or undefined. */
  async findAccount(deps: Deps, digest: string): Promise<number | undefined> {
    await this.checkGeneration(deps)
    const now = deps.now()
    const remembered = this.entries.get(digest)
    if (remembered && remembered.expiresAt > now) return remembered.accountId
    const epoch = this.epoch
    const token = await credentialsRepo.findLiveAccessToken(deps.db, digest, now)
    if (!token) return undefined
    if (epoch === this.epoch) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear()
      this.entries.set(digest, token)
    }
    return token.accountId
  }

  private async checkGeneration(deps: Deps): Promise<void> {
    const now = deps.now()
    if (now - this.checkedAt < GENERATION_CHECK_MS) return
    // Claimed before the read, so the requests arriving meanwhile do not all read it too.
    this.checkedAt = now
    let generation: number
    try {
      generation = await credentialsRepo.findRevocationGeneration(deps.db)
    } catch (err) {
      this.checkedAt = Number.NEGATIVE_INFINITY
      throw err
    }
    if (generation !== this.generation) {
      this.entries.clear()
      this.epoch++
      this.generation = generation
    }
  }
}
