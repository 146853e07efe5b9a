// What a campaign was paid and what it owes, the same for every channel: messages never sent are given back.
import type { Kysely } from 'kysely'
import * as campaignsRepo from '../../storage/repos/campaigns.js'
import * as messageStats from '../../storage/repos/message-stats.js'
import * as accountsRepo from '../../storage/repos/accounts.js'
import type { Database } from '../../storage/tables.js'

/** Gives back what was written off for recipients without a message, or whose message was never sent. */
export async function settleCharge(db: Kysely<Database>, campaign: campaignsRepo.CampaignRow, now: number): Promise<void> {
  // A free email campaign has nothing to give back; an SMS campaign's price is on its messages.
  if (campaign.priceMicros === 0 && campaign.channel === 'email') return
  // An email has no price of its own: the counts give what is owed without reading every message.
  const fair = campaign.channel === 'email' ? await messageStats.owedAtOnePrice(db, campaign.id, campaign.priceMicros) : await messageStats.owedMicros(db, campaign.id, campaign.priceMicros)
  const current = (await campaignsRepo.findCampaignById(db, campaign.id))?.chargedMicros ?? campaign.chargedMicros
  if (fair >= current) return
  const note = campaign.channel === 'email' ? `campaign ${campaign.id}` : `${campaign.channel} campaign ${campaign.id}`
  await accountsRepo.recordLedgerEntry(db, { accountId: campaign.accountId, amountMicros: current - fair, kind: 'refund', note, now })
  await campaignsRepo.setChargedMicros(db, campaign.id, fair, now)
}
