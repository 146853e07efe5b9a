// Viber campaigns as rows of the shared campaigns table (channel 'viber'): their list, and their rewrite by
// POST /viber/update before any message went out.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'
import type { Page } from '../../services/types.js'
import { toCampaign, type CampaignRow } from './campaigns.js'

/** The account's Viber campaigns, newest first. */
export async function listViberCampaigns(db: Kysely<Database>, accountId: number, page: Page): Promise<CampaignRow[]> {
  const rows = await db.selectFrom('campaigns').selectAll().where('account_id', '=', accountId).where('channel', '=', 'viber').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute()
  return rows.map(toCampaign)
}

export interface ViberCampaignRewrite {
  name: string
  body: string
  senderName: string
  channelOptions: string
  listIds: number[]
  sendAt: number
  scheduled: boolean
}

/** Replaces what an update may change, and the campaign's lists. */
export async function rewriteViberCampaign(db: Kysely<Database>, id: number, c: ViberCampaignRewrite, now: number): Promise<void> {
  await db
    .updateTable('campaigns')
    .set({
      name: c.name,
      body: c.body,
      sender_name: c.senderName,
      channel_options: c.channelOptions,
      list_ids: JSON.stringify(c.listIds),
      send_at: c.sendAt,
      scheduled: c.scheduled ? 1 : 0,
      updated_at: now,
    })
    .where('id', '=', id)
    .execute()
  await db.deleteFrom('campaign_lists').where('campaign_id', '=', id).execute()
  if (c.listIds.length > 0) await db.insertInto('campaign_lists').values(c.listIds.map((bookId) => ({ campaign_id: id, address_book_id: bookId }))).execute()
}

/** The recipients of a campaign not yet started, to be written again. */
export async function takeUnsentMessages(db: Kysely<Database>, campaignId: number): Promise<{ phone: string; variables: string; bookId: number | null }[]> {
  const rows = await db.selectFrom('messages').select(['address', 'variables', 'address_book_id']).where('campaign_id', '=', campaignId).orderBy('id').execute()
  await db.deleteFrom('messages').where('campaign_id', '=', campaignId).execute()
  return rows.map((r) => ({ phone: r.address, variables: r.variables, bookId: r.address_book_id === null ? null : Number(r.address_book_id) }))
}
