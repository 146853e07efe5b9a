// A campaign's content prepared once and kept while its row is unchanged (the same `updatedAt`): a sender renders
// thousands of messages from it, tracking resolves links with it. Content that breaks a library becomes an Error,
// which ends that campaign's messages as not sent instead of stopping the dispatcher.
import type { CampaignRow } from '../../storage/repos/campaigns.js'

/** Campaigns sending at once are few; ended ones leave only by replacement, so the cache is bounded. */
const MAX_CACHED = 64

export function perCampaignCache<T>(prepare: (campaign: CampaignRow) => T): (campaign: CampaignRow) => T | Error {
  const cache = new Map<number, { updatedAt: number; prepared: T | Error }>()
  return (campaign) => {
    const cached = cache.get(campaign.id)
    if (cached && cached.updatedAt === campaign.updatedAt) return cached.prepared
    let prepared: T | Error
    try {
      prepared = prepare(campaign)
    } catch (err) {
      prepared = err instanceof Error ? err : new Error(String(err))
    }
    if (cache.size >= MAX_CACHED) cache.clear()
    cache.set(campaign.id, { updatedAt: campaign.updatedAt, prepared })
    return prepared
  }
}
