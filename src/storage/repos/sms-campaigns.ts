// What the SMS routes read of campaigns and their messages (API.md 2.11): the list by creation date, each
// number's status and price, whether sending has started, and deleting a campaign with what hangs on it.
import type { Kysely } from 'kysely'
import { hasStarted } from './message-queue.js'
import type { Database } from '../tables.js'
import { CAMPAIGN_STATUS, toCampaign, type CampaignRow } from './campaigns.js'
import { MESSAGE_STATUS, UNFINISHED } from './messages.js'

export interface NumberStatus {
  phone: string
  status: number
  country: string | null
  priceMicros: number
  lastError: string | null
}

/** SMS campaigns created in [from, to], oldest first; emulated ones are not listed (API.md 4.11.1). */
export async function listSmsCampaigns(db: Kysely<Database>, accountId: number, range: { from?: number; to?: number }): Promise<CampaignRow[]> {
  let query = db.selectFrom('campaigns').selectAll().where('account_id', '=', accountId).where('channel', '=', 'sms').where('status', '!=', CAMPAIGN_STATUS.emulated)
  if (range.from !== undefined) query = query.where('created_at', '>=', range.from)
  if (range.to !== undefined) query = query.where('created_at', '<=', range.to)
  return (await query.orderBy('created_at').orderBy('id').limit(10_000).execute()).map(toCampaign)
}

export async function numbersOf(db: Kysely<Database>, campaignId: number): Promise<NumberStatus[]> {
  const rows = await db.selectFrom('messages').select(['address', 'status', 'country', 'price_micros', 'last_error']).where('campaign_id', '=', campaignId).orderBy('id').execute()
  return rows.map((r) => ({ phone: r.address, status: r.status, country: r.country, priceMicros: Number(r.price_micros ?? 0), lastError: r.last_error }))
}

/** Whether sending has started and some message may still go out. */
export async function hasUnfinishedStarted(db: Kysely<Database>, campaignId: number): Promise<boolean> {
  if (!(await hasStarted(db, campaignId))) return false
  const row = await db.selectFrom('messages').select('id').where('campaign_id', '=', campaignId).where('status', 'in', [...UNFINISHED]).limit(1).executeTakeFirst()
  return row !== undefined
}

/** Removes an SMS campaign, its messages, their parts and its short links; the ledger keeps what was paid. */
export async function deleteSmsCampaign(db: Kysely<Database>, campaignId: number): Promise<void> {
  const messages = db.selectFrom('messages').select('id').where('campaign_id', '=', campaignId)
  await db.deleteFrom('sms_parts').where('message_id', 'in', messages).execute()
  await db.deleteFrom('messages').where('campaign_id', '=', campaignId).execute()
  await db.deleteFrom('short_links').where('campaign_id', '=', campaignId).execute()
  await db.deleteFrom('campaign_link_clicks').where('campaign_id', '=', campaignId).execute()
  await db.deleteFrom('campaign_lists').where('campaign_id', '=', campaignId).execute()
  await db.deleteFrom('campaigns').where('id', '=', campaignId).where('channel', '=', 'sms').execute()
}
