// Which due messages a worker claims next: accounts take turns (docs/decisions/0007). A claim starts at the account
// after the one the last claim of this worker ended with, takes that account's due messages up to the batch size,
// and fills what is left from the accounts after it, so an account's campaign of 100,000 holds another account's
// campaign of 10 back by one batch, not by the whole campaign. Each worker keeps its own turn; several workers
// interleave the same way, and SKIP LOCKED keeps them off each other's rows.
//
// An account over its own send rate (TIDINGS_EMAIL_ACCOUNT_RATE) is passed over until its bucket refills, and gets no
// more than its bucket holds: it never stalls the accounts after it.
import type { Deps } from '../services/types.js'
import type { CampaignChannel } from '../storage/repos/campaigns.js'
import * as messageQueue from '../storage/repos/message-queue.js'
import type { SendRate } from './send-rate.js'

/**
 * Accounts one claim looks at, and takes from, at most: the walk costs two index probes per account (≤ 64: ~1 ms on
 * PostgreSQL), and each account taken is one branch of the claim's statement. More accounts than that are served by
 * the next claims, which follow at once (the claim says more may be waiting).
 */
const ACCOUNTS_LOOKED_AT = 64
const ACCOUNTS_PER_CLAIM = 16

export interface FairClaimResult {
  claimed: messageQueue.ClaimedMessage[]
  /** More may be due now: the batch was full, or the claim took some and stopped before it had looked at every account. */
  more: boolean
  /** Nothing more now, but an account passed over for its rate may send after this many ms (0: none was). */
  retryInMs: number
}

export class FairClaim {
  /** The account the last claim ended with: the next one starts after it. */
  private turn = 0

  constructor(
    private readonly deps: Pick<Deps, 'db'>,
    private readonly channel: CampaignChannel,
    private readonly accountRate: SendRate,
    private readonly units: (message: messageQueue.ClaimedMessage) => number,
  ) {}

  async claim(c: { now: number; limit: number; leaseUntil: number; token: string }): Promise<FairClaimResult> {
    const accounts = await messageQueue.accountsInTurn(this.deps.db, { channel: this.channel, now: c.now, after: this.turn, max: ACCOUNTS_LOOKED_AT })
    const turns: messageQueue.AccountTurn[] = []
    let retryInMs = Infinity
    let lookedAt = 0
    for (const account of accounts) {
      if (turns.length >= ACCOUNTS_PER_CLAIM) break
      lookedAt++
      if (!account.due) continue
      const allowance = await this.accountRate.allowance(account.accountId)
      if (allowance < 1) retryInMs = Math.min(retryInMs, Math.max(1, this.accountRate.waitMs(account.accountId)))
      else turns.push({ accountId: account.accountId, limit: Math.min(allowance, c.limit) })
    }
    const claimed = await messageQueue.claimTurns(this.deps.db, { channel: this.channel, ...c, turns })
    for (const message of claimed) this.accountRate.spend(this.units(message), message.accountId)
    const full = claimed.length >= c.limit
    const taken = new Map<number, number>()
    for (const message of claimed) taken.set(message.accountId, (taken.get(message.accountId) ?? 0) + 1)
    const last = full ? lastWholeGo(turns, taken) : accounts[lookedAt - 1]?.accountId
    if (last !== undefined) this.turn = last
    // An account that took all its rate allowed (less than a batch) may have more due: the next claim asks its bucket
    // again at once, and learns when it refills. Waiting the poll interval instead held one worker's account to 80 % of
    // its rate: 2 pollers × a tenth of a second's worth every 250 ms.
    const rateBound = turns.some((turn) => turn.limit < c.limit && (taken.get(turn.accountId) ?? 0) >= turn.limit)
    // Stopped before the end of the walk with something taken: the next claim goes on at once. Stopped with nothing
    // taken (64 accounts with only later messages), it goes on after the poll interval, not in a loop without end.
    const cutShort = accounts.length >= ACCOUNTS_LOOKED_AT || lookedAt < accounts.length
    return { claimed, more: full || rateBound || (cutShort && claimed.length > 0), retryInMs: Number.isFinite(retryInMs) ? retryInMs : 0 }
  }
}

/**
 * Where a full batch ends the turn: with the last account that had its whole go (all its limit), so that an account
 * the batch cut short goes first in the next claim, unless it went first in this one (it had a batch). Without this,
 * an account that always came second in a batch (the first filled most of it) was always cut short: two accounts at
 * 20/s each under a channel rate of 30/s sent 78 and 39.
 */
function lastWholeGo(turns: readonly messageQueue.AccountTurn[], taken: ReadonlyMap<number, number>): number | undefined {
  const served = turns.filter((turn) => (taken.get(turn.accountId) ?? 0) > 0)
  const last = served.at(-1)
  if (!last || served.length === 1 || taken.get(last.accountId)! >= last.limit) return last?.accountId
  return served.at(-2)!.accountId
}
