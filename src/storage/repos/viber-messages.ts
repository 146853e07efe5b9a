// Viber messages after their submit: the provider's reports (delivered, read, rejected…), the button clicks of
// Tidings's own redirect, the end of their live time, and what the statistics and recipient list read of them.
// A report may come before the submit's answer is recorded (the provider is fast, our transaction not yet
// committed): it is stored in `report` whatever the message's state, and applied by whichever comes second —
// the callback (the message is already recorded as sent) or the recording (repos are called by
// services/viber/reports.ts and dispatcher/viber-driver.ts). Both touch the message row first, so one waits
// for the other.
import { sql, type Kysely } from 'kysely'
import type { Database } from '../tables.js'
import { isPostgres } from '../dialect.js'
import { MESSAGE_STATUS } from './messages.js'

/** What a report says of a Viber message, stored in messages.report. */
export type ViberReportState = 'delivered' | 'read' | 'rejected' | 'undeliverable' | 'expired'

/** The further a message got, the higher: a later report never takes it back (a late `delivered` after `read`). */
const PROGRESS: Record<ViberReportState, number> = { rejected: 1, undeliverable: 1, expired: 1, delivered: 2, read: 3 }

/** Message status a report moves a sent message to: API.md 3.3 codes, shown as 3.5 strings (api/wire/viber-campaign.ts). */
const STATUS_OF: Record<ViberReportState, number> = {
  delivered: MESSAGE_STATUS.delivered,
  read: MESSAGE_STATUS.opened,
  rejected: MESSAGE_STATUS.unavailable,
  undeliverable: MESSAGE_STATUS.unavailable,
  expired: MESSAGE_STATUS.unavailable,
}

/** A sent Viber message, and where reports may still move it. */
const REPORTABLE: readonly number[] = [MESSAGE_STATUS.sent, MESSAGE_STATUS.delivered, MESSAGE_STATUS.opened]

/** A Viber message that ended undelivered: who gets the SMS instead. */
export interface UndeliveredViber {
  id: number
  campaignId: number
  accountId: number
  address: string
  variables: string
  bookId: number | null
}

/**
 * Stores a report on the message (keeping the furthest one); undefined when no Viber message has this id.
 * `sent`: the message is recorded as sent, so applyReports may move it now; otherwise its recording will.
 */
export async function storeReport(db: Kysely<Database>, messageId: number, state: ViberReportState, now: number): Promise<{ campaignId: number; sent: boolean } | undefined> {
  let query = db.selectFrom('messages').select(['campaign_id', 'report', 'status']).where('id', '=', messageId).where('channel', '=', 'viber')
  if (isPostgres(db)) query = query.forUpdate()
  const row = await query.executeTakeFirst()
  if (!row) return undefined
  const known = row.report as ViberReportState | null
  if (known === null || PROGRESS[state] > (PROGRESS[known] ?? 0)) {
    await db.updateTable('messages').set({ report: state, updated_at: now }).where('id', '=', messageId).execute()
  }
  return { campaignId: Number(row.campaign_id), sent: REPORTABLE.includes(row.status) }
}

/**
 * Moves sent messages among `ids` to what their stored report says: delivered, read, or not delivered (only from
 * sent: a message delivered stays delivered). Returns those that ended not delivered. One UPDATE per move (from
 * a status to a status) rather than per message: a batch of 200 recorded as sent, most of whose reports came
 * first, was 200 statements in the recording transaction (docs/benchmarks.md, Viber campaigns).
 */
export async function applyReports(db: Kysely<Database>, ids: readonly number[], now: number): Promise<UndeliveredViber[]> {
  const undelivered: UndeliveredViber[] = []
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom('messages')
      .select(['id', 'campaign_id', 'account_id', 'address', 'variables', 'address_book_id', 'status', 'report'])
      .where('id', 'in', ids.slice(i, i + 500))
      .where('channel', '=', 'viber')
      .where('report', 'is not', null)
      .where('status', 'in', [...REPORTABLE])
      .execute()
    const moves = new Map<string, { from: number; state: ViberReportState; rows: typeof rows }>()
    for (const row of rows) {
      const state = row.report as ViberReportState
      const status = STATUS_OF[state]
      const failed = status === MESSAGE_STATUS.unavailable
      if (failed ? row.status !== MESSAGE_STATUS.sent : status <= row.status) continue
      const key = `${row.status}:${state}`
      const move = moves.get(key) ?? { from: row.status, state, rows: [] }
      move.rows.push(row)
      moves.set(key, move)
    }
    for (const { from, state, rows: moved } of moves.values()) {
      const status = STATUS_OF[state]
      const update = db
        .updateTable('messages')
        .set((eb) => ({
          status,
          opened_at: state === 'read' ? eb.fn.coalesce('opened_at', eb.val(now)) : eb.ref('opened_at'),
          updated_at: now,
        }))
        .where('id', 'in', moved.map((r) => r.id))
        .where('status', '=', from)
      if (status !== MESSAGE_STATUS.unavailable) {
        await update.execute()
        continue
      }
      // Only those this statement moved get their SMS instead: another writer may have moved one meanwhile.
      const changed = new Set((await update.returning('id').execute()).map((r) => Number(r.id)))
      for (const row of moved) if (changed.has(Number(row.id))) undelivered.push(toUndelivered(row))
    }
  }
  return undelivered
}

/**
 * Ends up to `limit` sent messages whose live time has passed without a delivery as not delivered (report
 * `expired`) and returns them. Two workers sweeping at once take different rows (PostgreSQL skips locked ones).
 */
export async function expireUndelivered(db: Kysely<Database>, now: number, limit: number): Promise<UndeliveredViber[]> {
  // The literals (not parameters) let SQLite use the partial index messages_viber_awaiting.
  let due = db.selectFrom('messages').select('id').where(sql<boolean>`channel = 'viber' and status = 1`).where('next_attempt_at', '<=', now).orderBy('next_attempt_at').limit(limit)
  if (isPostgres(db)) due = due.forUpdate().skipLocked()
  const rows = await db
    .updateTable('messages')
    .set((eb) => ({ status: MESSAGE_STATUS.unavailable, report: eb.fn.coalesce('report', eb.val('expired')), updated_at: now }))
    .where('id', 'in', due)
    .where('status', '=', MESSAGE_STATUS.sent)
    .returning(['id', 'campaign_id', 'account_id', 'address', 'variables', 'address_book_id'])
    .execute()
  return rows.map(toUndelivered)
}

/** A click on the button's redirect: the message was read and its link followed; false when unknown. */
export async function recordButtonClick(db: Kysely<Database>, messageId: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('messages')
    .set((eb) => ({
      status: eb.case().when('status', 'in', [...REPORTABLE]).then(MESSAGE_STATUS.redirected).else(eb.ref('status')).end(),
      clicked_at: eb.fn.coalesce('clicked_at', eb.val(now)),
      opened_at: eb.fn.coalesce('opened_at', eb.val(now)),
      updated_at: now,
    }))
    .where('id', '=', messageId)
    .where('channel', '=', 'viber')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

function toUndelivered(row: { id: number; campaign_id: number; account_id: number; address: string; variables: string; address_book_id: number | null }): UndeliveredViber {
  return {
    id: Number(row.id),
    campaignId: Number(row.campaign_id),
    accountId: Number(row.account_id),
    address: row.address,
    variables: row.variables,
    bookId: row.address_book_id === null ? null : Number(row.address_book_id),
  }
}

/** Messages of a campaign per channel and status: the statistics of its Viber messages and of its SMS instead. */
export async function countsOf(db: Kysely<Database>, campaignId: number): Promise<{ channel: string; status: number; count: number }[]> {
  const rows = await db
    .selectFrom('messages')
    .select((eb) => ['channel', 'status', eb.fn.countAll<number>().as('n')])
    .where('campaign_id', '=', campaignId)
    .groupBy(['channel', 'status'])
    .execute()
  return rows.map((r) => ({ channel: r.channel, status: r.status, count: Number(r.n) }))
}

export interface ViberRecipientRow {
  phone: string
  bookId: number | null
  status: number
  sentAt: number | null
  priceMicros: number
  updatedAt: number
}

/** A page of a campaign's Viber recipients, in the order they were added. */
export async function recipientsOf(db: Kysely<Database>, campaignId: number, page: { limit: number; offset: number }): Promise<ViberRecipientRow[]> {
  const rows = await db
    .selectFrom('messages')
    .select(['address', 'address_book_id', 'status', 'sent_at', 'price_micros', 'updated_at'])
    .where('campaign_id', '=', campaignId)
    .where('channel', '=', 'viber')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute()
  return rows.map((r) => ({
    phone: r.address,
    bookId: r.address_book_id === null ? null : Number(r.address_book_id),
    status: r.status,
    sentAt: r.sent_at === null ? null : Number(r.sent_at),
    priceMicros: Number(r.price_micros ?? 0),
    updatedAt: Number(r.updated_at),
  }))
}
