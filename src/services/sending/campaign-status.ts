// A campaign's status moves and its end, the same for every channel (API.md 3.3): the dispatcher ends a campaign
// whose messages are all final, cancels and moderation move it, and email campaigns record each move as a
// task_status_update event (API.md 6 has none for SMS).
import type { Kysely } from 'kysely'
import * as campaignsRepo from '../../storage/repos/campaigns.js'
import * as messageQueue from '../../storage/repos/message-queue.js'
import type { Database } from '../../storage/tables.js'
import { recordCampaignStatus } from '../events/events.js'

const { CAMPAIGN_STATUS } = campaignsRepo

/** Moves a campaign's status (campaignsRepo.moveStatus) and records the task_status_update event of an email campaign with it. */
export async function moveCampaign(db: Kysely<Database>, change: campaignsRepo.StatusChange): Promise<boolean> {
  const moved = await campaignsRepo.moveStatus(db, change)
  // API.md 6 has events for email campaigns only.
  if (moved?.channel === 'email') await recordCampaignStatus(db, { accountId: moved.accountId, campaignId: change.id, campaignName: moved.name, status: change.to }, change.now)
  return moved !== undefined
}

/**
 * Ends a sending campaign whose messages all have a final status: 2 → 3, or a test 4 → 8. `db` is the transaction
 * that just finished some of them: the campaign lock makes two such transactions look one after the other, so
 * the second sees the first's messages final (under READ COMMITTED both could otherwise see the other's as not).
 * FOR NO KEY UPDATE excludes every other decider and every writer of the row; FOR UPDATE would also wait for the
 * key-share locks of transactions that wrote a message twice, and two such recordings of one campaign upgrading
 * at once deadlock (campaignsRepo.lockCampaignBesideKeyShares). Messages are only added under a campaign lock
 * (the copy, a dynamic list, an SMS instead of a Viber message) or before the campaign sends.
 */
export async function finishIfDone(db: Kysely<Database>, campaignId: number, now: number): Promise<void> {
  await campaignsRepo.lockCampaignBesideKeyShares(db, campaignId)
  if (await messageQueue.hasUnfinished(db, campaignId)) return
  const extra = { finished_at: now }
  if (await moveCampaign(db, { id: campaignId, from: [CAMPAIGN_STATUS.sending], to: CAMPAIGN_STATUS.sent, now, extra })) return
  await moveCampaign(db, { id: campaignId, from: [CAMPAIGN_STATUS.test], to: CAMPAIGN_STATUS.testSent, now, extra })
}
