// A claim of due messages as the storage tests need it: every account with due messages, in id order, each up to
// the whole limit (the dispatcher keeps its own turn between accounts: dispatcher/fair-claim.ts).
import type { Kysely } from 'kysely'
import type { Database } from '../../src/storage/tables.js'
import type { CampaignChannel } from '../../src/storage/repos/campaigns.js'
import { accountsInTurn, claimTurns, type ClaimedMessage } from '../../src/storage/repos/message-queue.js'

export async function claimDue(
  db: Kysely<Database>,
  claim: { channel: CampaignChannel; now: number; limit: number; leaseUntil: number; token: string },
): Promise<ClaimedMessage[]> {
  const accounts = await accountsInTurn(db, { channel: claim.channel, now: claim.now, after: 0, max: 64 })
  return claimTurns(db, { ...claim, turns: accounts.filter((a) => a.due).map((a) => ({ accountId: a.accountId, limit: claim.limit })) })
}
