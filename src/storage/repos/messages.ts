// Messages: one row per recipient of a campaign (ARCHITECTURE.md "The sending model"). This file has the row,
// its statuses and what readers change on it (opens, clicks, unsubscribes, reports); the rows as the
// dispatcher's queue are in message-queue.ts, the statistics read from them in message-stats.ts.
import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, MessagesTable } from '../tables.js'
import { compiledOnce } from '../prepared-query.js'
import { givenRows, givenRowsArguments, isAmong, listArgument, type GivenColumn } from './given-rows.js'

/** statistics.general codes (API.md 3.3) the service sets. */
export const MESSAGE_STATUS = {
  queued: 0,
  sent: 1,
  delivered: 2,
  opened: 3,
  redirected: 4,
  unsubscribed: 5,
  retrying: 7,
  unavailable: 8,
  markedAsSpam: 11,
  notSent: 13,
} as const

/** provider_id of a message the capture channel kept instead of sending. */
export const CAPTURED = 'capture'

/** A message in one of these may still be sent; every other status is final. */
export const UNFINISHED: readonly number[] = [MESSAGE_STATUS.queued, MESSAGE_STATUS.retrying]
/** Reached the recipient's server: opens, clicks and unsubscribes may follow. */
const ARRIVED: readonly number[] = [MESSAGE_STATUS.sent, MESSAGE_STATUS.delivered]

export interface MessageRow {
  id: number
  campaignId: number
  accountId: number
  contactId: number | null
  bookId: number | null
  /** An email address, or a number's E.164 digits (SMS) */
  address: string
  /** JSON object */
  variables: string
  status: number
  attempts: number
  /** SMS parts (segments); null for email */
  parts: number | null
  /** The Viber message an SMS was sent instead of */
  fallbackOf: number | null
  lastError: string | null
  sentAt: number | null
  openedAt: number | null
  clickedAt: number | null
  unsubscribedAt: number | null
}

export async function findMessage(db: Kysely<Database>, id: number): Promise<MessageRow | undefined> {
  const row = await db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst()
  return row && toMessage(row)
}

/** A page of a campaign's messages, in id order. */
export async function listMessages(db: Kysely<Database>, campaignId: number, page: { limit: number; offset: number }): Promise<(MessageRow & { captured: boolean })[]> {
  const rows = await db.selectFrom('messages').selectAll().where('campaign_id', '=', campaignId).orderBy('id').limit(page.limit).offset(page.offset).execute()
  return rows.map((r) => ({ ...toMessage(r), captured: r.provider_id === CAPTURED }))
}

/** One message of a campaign (by the id the outbox lists), or none. */
export async function findCampaignMessage(db: Kysely<Database>, campaignId: number, id: number): Promise<(MessageRow & { captured: boolean }) | undefined> {
  const row = await db.selectFrom('messages').selectAll().where('id', '=', id).where('campaign_id', '=', campaignId).executeTakeFirst()
  return row && { ...toMessage(row), captured: row.provider_id === CAPTURED }
}

export async function findMessageByEmail(db: Kysely<Database>, campaignId: number, email: string): Promise<MessageRow | undefined> {
  const row = await db.selectFrom('messages').selectAll().where('campaign_id', '=', campaignId).where('address', '=', email).executeTakeFirst()
  return row && toMessage(row)
}

/** A message as a tracking hit needs it: who it went to, whether it was opened or clicked, and its campaign. */
export interface TrackedMessage {
  id: number
  campaignId: number
  accountId: number
  bookId: number | null
  address: string
  /** JSON object */
  variables: string
  openedAt: number | null
  clickedAt: number | null
  campaignName: string
  /** Whether a cached copy of the campaign row is still the campaign (campaign-cache.ts). */
  campaignUpdatedAt: number
}

/** The messages of a batch of hits, with their campaign: one query, compiled once, whose ids are one argument. */
const trackedMessages = compiledOnce((db, [ids]) =>
  db
    .selectFrom('messages')
    .innerJoin('campaigns', 'campaigns.id', 'messages.campaign_id')
    .select([
      'messages.id',
      'messages.campaign_id',
      'messages.account_id',
      'messages.address_book_id',
      'messages.address',
      'messages.variables',
      'messages.opened_at',
      'messages.clicked_at',
      'campaigns.name',
      'campaigns.updated_at',
    ])
    .where(isAmong(db, 'messages.id', ids, 'bigint')),
)

/** The messages among `ids` that exist, with their campaign, by id. */
export async function findTrackedMessages(db: Kysely<Database>, ids: readonly number[]): Promise<Map<number, TrackedMessage>> {
  if (ids.length === 0) return new Map()
  const { rows } = await trackedMessages(db, [listArgument(db, ids)])
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        id: Number(r.id),
        campaignId: Number(r.campaign_id),
        accountId: Number(r.account_id),
        bookId: r.address_book_id === null ? null : Number(r.address_book_id),
        address: r.address,
        variables: r.variables,
        openedAt: r.opened_at === null ? null : Number(r.opened_at),
        clickedAt: r.clicked_at === null ? null : Number(r.clicked_at),
        campaignName: r.name,
        campaignUpdatedAt: Number(r.updated_at),
      },
    ]),
  )
}

/** A first open to record: when, and from which country. */
export interface OpenChange {
  id: number
  country: string | null
  at: number
}

const OPENS: readonly GivenColumn[] = [{ name: 'id', type: 'bigint' }, { name: 'country', type: 'text' }, { name: 'hit_at', type: 'bigint' }]

const openedMessages = compiledOnce((db, args) =>
  sql<{ id: number }>`
    update messages set opened_at = given.hit_at, country = given.country, updated_at = given.hit_at,
      status = case when messages.status in (${sql.join(ARRIVED.map((s) => sql.lit(s)))}) then ${sql.lit(MESSAGE_STATUS.opened)} else messages.status end
    from ${givenRows(db, OPENS, args)}
    where messages.id = given.id and messages.opened_at is null
    returning messages.id`,
)

/**
 * Records first opens, each message given once, in one statement; returns the messages that had no open yet (an
 * open recorded meanwhile stays the first). Ids in order, so that two writers lock shared rows in one order.
 */
export async function markOpened(db: Kysely<Database>, opens: readonly OpenChange[]): Promise<Set<number>> {
  if (opens.length === 0) return new Set()
  const sorted = [...opens].sort((a, b) => a.id - b.id)
  const { rows } = await openedMessages(db, givenRowsArguments(db, OPENS, sorted.map((o) => [o.id, o.country, o.at])))
  return new Set(rows.map((r) => Number(r.id)))
}

/** A first click to record (a message given once). */
export interface ClickChange {
  id: number
  at: number
}

const CLICKS: readonly GivenColumn[] = [{ name: 'id', type: 'bigint' }, { name: 'hit_at', type: 'bigint' }]

// The right-hand sides read the row as it was: the status moves only when this is the first click.
const clickedMessages = compiledOnce((db, args) =>
  sql`
    update messages set opened_at = coalesce(messages.opened_at, given.hit_at), clicked_at = coalesce(messages.clicked_at, given.hit_at), updated_at = given.hit_at,
      status = case when messages.clicked_at is null and messages.status in (${sql.join([...ARRIVED, MESSAGE_STATUS.opened].map((s) => sql.lit(s)))}) then ${sql.lit(MESSAGE_STATUS.redirected)} else messages.status end
    from ${givenRows(db, CLICKS, args)}
    where messages.id = given.id and (messages.opened_at is null or messages.clicked_at is null)`,
)

/**
 * Records first clicks in one statement: each counts as an open too when none was seen (images may be blocked);
 * the status moves to redirected only with the first click. Ids in order, as markOpened.
 */
export async function markClicked(db: Kysely<Database>, clicks: readonly ClickChange[]): Promise<void> {
  if (clicks.length === 0) return
  const sorted = [...clicks].sort((a, b) => a.id - b.id)
  await clickedMessages(db, givenRowsArguments(db, CLICKS, sorted.map((c) => [c.id, c.at])))
}

/** Records an unsubscribe from the message; true when it was the first. */
export async function markUnsubscribed(db: Kysely<Database>, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('messages')
    .set((eb) => ({
      unsubscribed_at: now,
      status: eb.case().when('status', 'in', [...ARRIVED, MESSAGE_STATUS.opened, MESSAGE_STATUS.redirected]).then(MESSAGE_STATUS.unsubscribed).else(eb.ref('status')).end(),
      updated_at: now,
    }))
    .where('id', '=', id)
    .where('unsubscribed_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** A bounce or complaint reported after sending replaces the message's status; false when it already had it. */
export async function markReported(db: Kysely<Database>, id: number, change: { status: number; error: string; now: number }): Promise<boolean> {
  const result = await db
    .updateTable('messages')
    .set({ status: change.status, queued: 0, last_error: change.error, updated_at: change.now })
    .where('id', '=', id)
    .where('status', '<>', change.status)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export function toMessage(row: Selectable<MessagesTable>): MessageRow {
  return {
    id: Number(row.id),
    campaignId: Number(row.campaign_id),
    accountId: Number(row.account_id),
    contactId: row.contact_id === null ? null : Number(row.contact_id),
    bookId: row.address_book_id === null ? null : Number(row.address_book_id),
    address: row.address,
    parts: row.parts === null ? null : Number(row.parts),
    fallbackOf: row.fallback_of === null ? null : Number(row.fallback_of),
    variables: row.variables,
    status: row.status,
    attempts: Number(row.attempts),
    lastError: row.last_error,
    sentAt: row.sent_at === null ? null : Number(row.sent_at),
    openedAt: row.opened_at === null ? null : Number(row.opened_at),
    clickedAt: row.clicked_at === null ? null : Number(row.clicked_at),
    unsubscribedAt: row.unsubscribed_at === null ? null : Number(row.unsubscribed_at),
  }
}
