// Campaign content prepared once (delivery/email/campaign-content.ts) and kept while the campaign row is
// unchanged: the dispatcher renders thousands of messages from it, tracking resolves links with it.
import { prepareCampaign, type PreparedCampaign } from '../../delivery/email/campaign-content.js'
import type { CampaignRow } from '../../storage/repos/campaigns.js'

/** Campaigns sending at once are few; ended ones leave the cache only by replacement, so bound it. */
const MAX_CACHED = 64
const cache = new Map<number, { updatedAt: number; prepared: PreparedCampaign | Error }>()

export function preparedCampaign(campaign: CampaignRow): PreparedCampaign | Error {
  const cached = cache.get(campaign.id)
  if (cached && cached.updatedAt === campaign.updatedAt) return cached.prepared
  const prepared = prepareSafely(campaign)
  if (cache.size >= MAX_CACHED) cache.clear()
  cache.set(campaign.id, { updatedAt: campaign.updatedAt, prepared })
  return prepared
}

/** A campaign whose content breaks a library must end its messages as not sent, not stop the dispatcher. */
function prepareSafely(campaign: CampaignRow): PreparedCampaign | Error {
  try {
    return prepareCampaign(campaign)
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err))
  }
}
