// Bearer credentials (access tokens and API keys) this process has seen, so most API calls cost no query and no
// digest (SHA-256 of each call's token was ~2 µs of its CPU). They are kept as given: the digest protects the copy in
// the database, and this process holds each credential in memory while it answers its calls anyway. A revocation (disable, delete, rotate-secret, revoke-tokens, revoking an API key) bumps one counter in
// the database; each process reads it at most once a second and forgets every credential when it moved, so a
// revoked one stops working everywhere within GENERATION_CHECK_MS. One cache per server: two servers in one
// test stand for two processes.
import * as credentialsRepo from '../../storage/repos/credentials.js'
import { digestToken } from '../../lib/secrets.js'
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

  /**
   * The account of a live credential, answered without waiting when this process already knows it and read the
   * revocation counter less than GENERATION_CHECK_MS ago; undefined otherwise (ask findAccount).
   */
  remembered(credential: string, now: number): number | undefined {
    if (now - this.checkedAt >= GENERATION_CHECK_MS) return undefined
    const entry = this.entries.get(credential)
    return entry && entry.expiresAt > now ? entry.accountId : undefined
  }

  /** The account of a live access token or an active API key, or undefined. */
  async findAccount(deps: Deps, credential: string): Promise<number | undefined> {
    await this.checkGeneration(deps)
    const now = deps.now()
    const remembered = this.entries.get(credential)
    if (remembered && remembered.expiresAt > now) return remembered.accountId
    const epoch = this.epoch
    const found = await findCredential(deps, digestToken(credential), now)
    if (!found) return undefined
    if (epoch === this.epoch) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear()
      this.entries.set(credential, found)
    }
    return found.accountId
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

/** An access token until it expires; an API key until it is revoked (which moves the revocation counter). */
async function findCredential(deps: Deps, digest: string, now: number): Promise<{ accountId: number; expiresAt: number } | undefined> {
  const token = await credentialsRepo.findLiveAccessToken(deps.db, digest, now)
  if (token) return token
  const keyAccount = await credentialsRepo.findActiveApiKeyAccount(deps.db, digest)
  return keyAccount === undefined ? undefined : { accountId: keyAccount, expiresAt: Number.POSITIVE_INFINITY }
}
