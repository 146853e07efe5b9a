// The console's campaign report beyond the SendPulse statistics (Tidings extensions): a campaign's recipients with
// their statuses, a page at a time, and its opens and clicks over time. Only the account's own email campaigns:
// another account's id is answered as one that does not exist (getCampaign).
import * as report from '../../storage/repos/campaign-report.js'
import * as messageStats from '../../storage/repos/message-stats.js'
import { getCampaign } from './campaigns.js'
import type { Deps } from '../types.js'

export type Recipient = report.RecipientRow
export type TimelineBucket = report.TimelineBucket

export const BUCKET_MS = { hour: 3_600_000, day: 86_400_000 } as const
export type Bucket = keyof typeof BUCKET_MS

export async function recipientsOf(deps: Deps, accountId: number, id: number, query: report.RecipientQuery): Promise<Recipient[]> {
  await getCampaign(deps, accountId, id)
  const statuses = [...((await messageStats.totalsOf(deps.db, [id])).get(id)?.byStatus.keys() ?? [])]
  return report.listRecipients(deps.db, id, statuses, query)
}

export async function timelineOf(deps: Deps, accountId: number, id: number, query: { bucket: Bucket; fromMs: number; limit: number }): Promise<TimelineBucket[]> {
  await getCampaign(deps, accountId, id)
  const bucketMs = BUCKET_MS[query.bucket]
  // From the start of the bucket `fromMs` falls in: a bucket is counted whole or not at all.
  return report.timeline(deps.db, id, { bucketMs, fromMs: query.fromMs - (query.fromMs % bucketMs), limit: query.limit })
}
