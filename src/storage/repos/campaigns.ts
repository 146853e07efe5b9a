// Campaigns of every channel: the record, its lists and the status changes of its lifecycle (API.md 3.3). The
// account-facing finders take the channel, so an email route never sees an SMS campaign and the other way round.
import { sql, type Kysely, type Selectable } from 'kysely'
import { isPostgres } from '../dialect.js'
import { compiledOnce } from '../prepared-query.js'
import { givenRows, givenRowsArguments, type GivenColumn } from './given-rows.js'
import type { CampaignsTable, Database } from '../tables.js'
import type { Page } from '../../services/types.js'

/** API.md 3.3 codes the service sets. */
export const CAMPAIGN_STATUS = {
  pending: 1,
  sending: 2,
  sent: 3,
  test: 4,
  blocked: 5,
  testSent: 8,
  noActiveAddresses: 12,
  copying: 13,
  canceled: 16,
  draft: 26,
  /** Tidings's own, SMS only: `emulate` formed and priced it, nothing is sent and it is not listed (API.md 4.11.1). */
  emulated: 27,
} as const

export type CampaignChannel = 'email' | 'sms' | 'viber'

/** Statuses in which messages of the campaign may still go out. */
export const SENDING_STATUSES: readonly number[] = [CAMPAIGN_STATUS.copying, CAMPAIGN_STATUS.sending, CAMPAIGN_STATUS.test]
/** Statuses a campaign can still be canceled (or edited) in. */
export const OPEN_STATUSES: readonly number[] = [CAMPAIGN_STATUS.copying, CAMPAIGN_STATUS.pending, CAMPAIGN_STATUS.sending, CAMPAIGN_STATUS.test, CAMPAIGN_STATUS.draft]

export interface Attachment {
  filename: string
  /** Base64 */
  content: string
}

export interface CampaignRow {
  id: number
  accountId: number
  name: string
  status: number
  isTest: boolean
  senderName: string
  senderEmail: string
  subject: string
  body: string
  bodyAmp: string | null
  templateId: number | null
  lang: string
  listIds: number[]
  segmentId: number | null
  sendAt: number
  scheduled: boolean
  useDynamicList: boolean
  attachments: Attachment[]
  trackOpens: boolean
  trackClicks: boolean
  utmCampaign: string | null
  allEmailQty: number
  tariffEmailQty: number
  paidEmailQty: number
  skippedQty: number
  priceMicros: number
  chargedMicros: number
  currency: string
  startedAt: number | null
  finishedAt: number | null
  channel: CampaignChannel
  /** The channel's own settings (SMS: services/sms/campaign-options.ts), JSON */
  channelOptions: string
  createdAt: number
  updatedAt: number
}

export type NewCampaign = Omit<CampaignRow, 'id' | 'skippedQty' | 'startedAt' | 'finishedAt' | 'createdAt' | 'updatedAt' | 'channel' | 'channelOptions'> &
  Partial<Pick<CampaignRow, 'channel' | 'channelOptions'>> & { now: number }

/** The fields of a campaign to numbers (SMS, Viber) that only email uses: their price is on each message. */
export const PHONE_CAMPAIGN_DEFAULTS = {
  isTest: false,
  senderEmail: '',
  subject: '',
  bodyAmp: null,
  templateId: null,
  lang: '',
  segmentId: null,
  attachments: [],
  trackOpens: false,
  trackClicks: false,
  utmCampaign: null,
  tariffEmailQty: 0,
  paidEmailQty: 0,
  priceMicros: 0,
  chargedMicros: 0,
} as const satisfies Partial<NewCampaign>

export async function insertCampaign(db: Kysely<Database>, c: NewCampaign): Promise<number> {
  const row = await db
    .insertInto('campaigns')
    .values({
      account_id: c.accountId,
      name: c.name,
      status: c.status,
      is_test: c.isTest ? 1 : 0,
      sender_name: c.senderName,
      sender_email: c.senderEmail,
      subject: c.subject,
      body: c.body,
      body_amp: c.bodyAmp,
      template_id: c.templateId,
      lang: c.lang,
      list_ids: JSON.stringify(c.listIds),
      segment_id: c.segmentId,
      send_at: c.sendAt,
      scheduled: c.scheduled ? 1 : 0,
      use_dynamic_list: c.useDynamicList ? 1 : 0,
      attachments: JSON.stringify(c.attachments),
      track_opens: c.trackOpens ? 1 : 0,
      track_clicks: c.trackClicks ? 1 : 0,
      utm_campaign: c.utmCampaign,
      all_email_qty: c.allEmailQty,
      tariff_email_qty: c.tariffEmailQty,
      paid_email_qty: c.paidEmailQty,
      price_micros: c.priceMicros,
      charged_micros: c.chargedMicros,
      currency: c.currency,
      channel: c.channel ?? 'email',
      channel_options: c.channelOptions ?? '{}',
      created_at: c.now,
      updated_at: c.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const id = Number(row.id)
  if (c.listIds.length > 0) {
    await db.insertInto('campaign_lists').values(c.listIds.map((bookId) => ({ campaign_id: id, address_book_id: bookId }))).execute()
  }
  return id
}

/** The account's campaign of a channel: what every account-facing route starts from. */
export async function findCampaign(db: Kysely<Database>, accountId: number, id: number, channel: CampaignChannel = 'email'): Promise<CampaignRow | undefined> {
  const row = await db.selectFrom('campaigns').selectAll().where('account_id', '=', accountId).where('id', '=', id).where('channel', '=', channel).executeTakeFirst()
  return row && toCampaign(row)
}

/** A campaign by id alone: for the dispatcher and tracking, which start from a message, not an account. */
export async function findCampaignById(db: Kysely<Database>, id: number): Promise<CampaignRow | undefined> {
  const row = await db.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirst()
  return row && toCampaign(row)
}

export interface CampaignFilter {
  accountId: number
  statuses?: readonly number[]
  /** Only campaigns whose sending time is still ahead. */
  scheduledAfter?: number
  order: 'asc' | 'desc'
}

export async function listCampaigns(db: Kysely<Database>, filter: CampaignFilter, page: Page): Promise<CampaignRow[]> {
  let query = db.selectFrom('campaigns').selectAll().where('account_id', '=', filter.accountId).where('channel', '=', 'email')
  if (filter.statuses && filter.statuses.length > 0) query = query.where('status', 'in', [...filter.statuses])
  if (filter.scheduledAfter !== undefined) query = query.where('scheduled', '=', 1).where('send_at', '>', filter.scheduledAfter)
  const rows = await query.orderBy('id', filter.order).limit(page.limit).offset(page.offset).execute()
  return rows.map(toCampaign)
}

/** Campaigns of every account in one status, oldest first (the operator's moderation queue). */
export async function listByStatus(db: Kysely<Database>, status: number): Promise<CampaignRow[]> {
  const rows = await db.selectFrom('campaigns').selectAll().where('status', '=', status).orderBy('id').execute()
  return rows.map(toCampaign)
}

/** The account's campaigns that may still send (every open status but draft). */
export async function listUnfinishedOf(db: Kysely<Database>, accountId: number): Promise<CampaignRow[]> {
  const unfinished = OPEN_STATUSES.filter((status) => status !== CAMPAIGN_STATUS.draft)
  const rows = await db.selectFrom('campaigns').selectAll().where('account_id', '=', accountId).where('status', 'in', unfinished).orderBy('id').execute()
  return rows.map(toCampaign)
}

/** Campaigns of the account sent to a list, newest first. */
export async function listCampaignsOfBook(db: Kysely<Database>, accountId: number, bookId: number, page: Page): Promise<CampaignRow[]> {
  const rows = await db
    .selectFrom('campaigns')
    .innerJoin('campaign_lists', 'campaign_lists.campaign_id', 'campaigns.id')
    .selectAll('campaigns')
    .where('campaigns.account_id', '=', accountId)
    .where('campaigns.channel', '=', 'email')
    .where('campaign_lists.address_book_id', '=', bookId)
    .orderBy('campaigns.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute()
  return rows.map(toCampaign)
}

/** Email campaigns the account created since `since`, drafts and tests included: the basis of the hourly limit. */
export async function createdSince(db: Kysely<Database>, accountId: number, since: number): Promise<number[]> {
  const rows = await db
    .selectFrom('campaigns')
    .select('created_at')
    .where('account_id', '=', accountId)
    .where('channel', '=', 'email')
    .where('created_at', '>=', since)
    .orderBy('created_at')
    .execute()
  return rows.map((r) => Number(r.created_at))
}

export interface StatusChange {
  id: number
  from: readonly number[]
  to: number
  now: number
  extra?: Partial<{ all_email_qty: number; skipped_qty: number; started_at: number; finished_at: number }>
}

/** Moves a campaign to `to` when it is in one of `from`; what it moved, or undefined when it was not there. */
export async function moveStatus(db: Kysely<Database>, change: StatusChange): Promise<{ accountId: number; name: string; channel: CampaignChannel } | undefined> {
  const row = await db
    .updateTable('campaigns')
    .set({ status: change.to, updated_at: change.now, ...change.extra })
    .where('id', '=', change.id)
    .where('status', 'in', [...change.from])
    .returning(['account_id', 'name', 'channel'])
    .executeTakeFirst()
  return row && { accountId: Number(row.account_id), name: row.name, channel: row.channel as CampaignChannel }
}

/**
 * Takes the campaign's row lock until the transaction ends (PostgreSQL; SQLite has one writer): transactions
 * that each finish part of a campaign then decide its end one after the other, each seeing the other's work.
 */
export async function lockCampaign(db: Kysely<Database>, id: number): Promise<void> {
  if (isPostgres(db)) await db.selectFrom('campaigns').select('id').where('id', '=', id).forUpdate().execute()
}

/**
 * lockCampaign for a transaction that may already hold the key-share lock PostgreSQL's foreign-key check takes on
 * the campaign when a message is written twice in one transaction (a Viber callback stores its report, then the
 * status). FOR UPDATE conflicts with the key-share locks of other such transactions, so two of them upgrading at
 * once deadlock (307 in 90 s, 1 s each, with 100 undelivered numbers in one campaign: viber/crash.test.ts);
 * FOR NO KEY UPDATE does not, and still excludes every other lockCampaign holder and writer of the row.
 */
export async function lockCampaignBesideKeyShares(db: Kysely<Database>, id: number): Promise<void> {
  if (isPostgres(db)) await db.selectFrom('campaigns').select('id').where('id', '=', id).forNoKeyUpdate().execute()
}

/** The body as sent (SMS: with its links shortened once the campaign's id is known). */
export async function setBody(db: Kysely<Database>, id: number, body: string, now: number): Promise<void> {
  await db.updateTable('campaigns').set({ body, updated_at: now }).where('id', '=', id).execute()
}

export async function setChargedMicros(db: Kysely<Database>, id: number, chargedMicros: number, now: number): Promise<void> {
  await db.updateTable('campaigns').set({ charged_micros: chargedMicros, updated_at: now }).where('id', '=', id).execute()
}

/** The first step of the copy of recipients marks the start (started_at); false when a copy already started. */
export async function claimCopy(db: Kysely<Database>, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('campaigns')
    .set({ started_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', CAMPAIGN_STATUS.copying)
    .where('started_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Adds to what the campaign was charged, and to the emails written off for it (tariff_email_qty). */
export async function addCharge(db: Kysely<Database>, id: number, charge: { micros: number; emails: number }, now: number): Promise<void> {
  await db
    .updateTable('campaigns')
    .set((eb) => ({ charged_micros: eb('charged_micros', '+', charge.micros), tariff_email_qty: eb('tariff_email_qty', '+', charge.emails), updated_at: now }))
    .where('id', '=', id)
    .execute()
}

export interface CampaignEdit {
  name?: string
  senderName?: string
  senderEmail?: string
  subject?: string
  body?: string
  templateId?: number | null
  lang?: string
  sendAt?: number
}

/** A draft, or a campaign open and not yet due at `now`: what editCampaign's condition selects, for a row already read. */
export function isWaiting(campaign: Pick<CampaignRow, 'status' | 'sendAt'>, now: number): boolean {
  return campaign.status === CAMPAIGN_STATUS.draft || (OPEN_STATUSES.includes(campaign.status) && campaign.sendAt > now)
}

/**
 * Applies an edit when the campaign is still waiting at `now`: a draft, or open and not yet due. The condition is in
 * the UPDATE itself, so an edit read before a cancel or the start of sending cannot land after it (PostgreSQL
 * checks it again on the row it waited for). The campaign's status when it applied, or undefined when it did not.
 */
export async function editCampaign(db: Kysely<Database>, id: number, edit: CampaignEdit, now: number): Promise<number | undefined> {
  const row = await db
    .updateTable('campaigns')
    .set({
      name: edit.name,
      sender_name: edit.senderName,
      sender_email: edit.senderEmail,
      subject: edit.subject,
      body: edit.body,
      template_id: edit.templateId,
      lang: edit.lang,
      send_at: edit.sendAt,
      scheduled: edit.sendAt === undefined ? undefined : 1,
      updated_at: now,
    })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('status', '=', CAMPAIGN_STATUS.draft), eb.and([eb('status', 'in', [...OPEN_STATUSES]), eb('send_at', '>', now)])]))
    .returning('status')
    .executeTakeFirst()
  return row?.status
}

export async function countLinkClick(db: Kysely<Database>, campaignId: number, link: string): Promise<void> {
  await db
    .insertInto('campaign_link_clicks')
    .values({ campaign_id: campaignId, link, clicks: 1 })
    .onConflict((oc) => oc.columns(['campaign_id', 'link']).doUpdateSet({ clicks: (eb) => eb('campaign_link_clicks.clicks', '+', 1) }))
    .execute()
}

const LINK_CLICKS: readonly GivenColumn[] = [{ name: 'campaign_id', type: 'bigint' }, { name: 'link', type: 'text' }, { name: 'clicks', type: 'integer' }]

// `where true`: SQLite reads an ON CONFLICT after a bare FROM as a join's constraint.
const countedLinkClicks = compiledOnce((db, args) =>
  sql`
    insert into campaign_link_clicks (campaign_id, link, clicks)
    select given.campaign_id, given.link, given.clicks from ${givenRows(db, LINK_CLICKS, args)} where true
    on conflict (campaign_id, link) do update set clicks = campaign_link_clicks.clicks + excluded.clicks`,
)

/** Clicks of a batch counted per link: one statement, keys in order so that two writers lock shared rows alike. */
export async function countLinkClicks(db: Kysely<Database>, counts: readonly { campaignId: number; link: string; clicks: number }[]): Promise<void> {
  if (counts.length === 0) return
  const rows = [...counts].sort((a, b) => a.campaignId - b.campaignId || (a.link < b.link ? -1 : a.link > b.link ? 1 : 0)).map((c) => [c.campaignId, c.link, c.clicks])
  await countedLinkClicks(db, givenRowsArguments(db, LINK_CLICKS, rows))
}

export async function linkClicks(db: Kysely<Database>, campaignId: number): Promise<{ link: string; clicks: number }[]> {
  const rows = await db.selectFrom('campaign_link_clicks').select(['link', 'clicks']).where('campaign_id', '=', campaignId).orderBy('clicks', 'desc').orderBy('link').execute()
  return rows.map((r) => ({ link: r.link, clicks: Number(r.clicks) }))
}

export function toCampaign(row: Selectable<CampaignsTable>): CampaignRow {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    name: row.name,
    status: row.status,
    isTest: row.is_test === 1,
    senderName: row.sender_name,
    senderEmail: row.sender_email,
    subject: row.subject,
    body: row.body,
    bodyAmp: row.body_amp,
    templateId: row.template_id === null ? null : Number(row.template_id),
    lang: row.lang,
    listIds: JSON.parse(row.list_ids) as number[],
    segmentId: row.segment_id === null ? null : Number(row.segment_id),
    sendAt: Number(row.send_at),
    scheduled: row.scheduled === 1,
    useDynamicList: row.use_dynamic_list === 1,
    attachments: JSON.parse(row.attachments) as Attachment[],
    trackOpens: row.track_opens === 1,
    trackClicks: row.track_clicks === 1,
    utmCampaign: row.utm_campaign,
    allEmailQty: Number(row.all_email_qty),
    tariffEmailQty: Number(row.tariff_email_qty),
    paidEmailQty: Number(row.paid_email_qty),
    skippedQty: Number(row.skipped_qty),
    priceMicros: Number(row.price_micros),
    chargedMicros: Number(row.charged_micros),
    currency: row.currency,
    startedAt: row.started_at === null ? null : Number(row.started_at),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
    channel: row.channel as CampaignChannel,
    channelOptions: row.channel_options,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  }
}
