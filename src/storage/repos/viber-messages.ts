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
import { lockCampaign } from './campaigns.js'
import { statusCountsOf } from './message-stats.js'

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

/** What storeReports did: the Viber messages found (by id), and those it ended not delivered. */
export interface StoredReports {
  found: Set<number>
  undelivered: UndeliveredViber[]
}

/**
 * Stores reports on their messages, keeping the furthest one (several of one message: the furthest counts), and
 * moves a message already recorded as sent to what it says, as applyReports does; one the recording has not
 * reached yet keeps the report for it (viber-driver.ts afterRecord). Each message row is written once: on
 * PostgreSQL a row written twice in one transaction has its foreign keys checked again, which share-locks its
 * campaign and account, and two reports upgrading those locks at once to pay for their SMS instead deadlocked.
 * `skipLocked` (PostgreSQL): a message another transaction holds is left out, as if unknown, instead of waited for.
 */
export async function storeReports(
  db: Kysely<Database>,
  reports: readonly { messageId: number; state: ViberReportState }[],
  now: number,
  options: { skipLocked?: boolean } = {},
): Promise<StoredReports> {
  const furthest = new Map<number, ViberReportState>()
  for (const { messageId, state } of reports) {
    const known = furthest.get(messageId)
    if (known === undefined || PROGRESS[state] > PROGRESS[known]) furthest.set(messageId, state)
  }
  const ids = [...furthest.keys()]
  const stored: StoredReports = { found: new Set(), undelivered: [] }
  for (let i = 0; i < ids.length; i += 500) {
    let query = db
      .selectFrom('messages')
      .select(['id', 'campaign_id', 'account_id', 'address', 'variables', 'address_book_id', 'status', 'report'])
      .where('id', 'in', ids.slice(i, i + 500))
      .where('channel', '=', 'viber')
    if (isPostgres(db)) query = options.skipLocked ? query.forUpdate().skipLocked() : query.forUpdate()
    // One UPDATE per (report, status from, status to).
    const writes = new Map<string, { report: ViberReportState; from: number; to: number; rows: Awaited<ReturnType<typeof query.execute>> }>()
    for (const row of await query.execute()) {
      stored.found.add(Number(row.id))
      const known = row.report as ViberReportState | null
      const given = furthest.get(Number(row.id))!
      const report = known !== null && PROGRESS[known] >= PROGRESS[given] ? known : given
      const to = movedTo(row.status, report) ?? row.status
      if (report === known && to === row.status) continue
      const key = `${report}:${row.status}:${to}`
      const write = writes.get(key) ?? { report, from: row.status, to, rows: [] }
      write.rows.push(row)
      writes.set(key, write)
    }
    for (const { report, from, to, rows } of writes.values()) {
      await db
        .updateTable('messages')
        .set((eb) => ({
          report,
          status: to,
          opened_at: to !== from && report === 'read' ? eb.fn.coalesce('opened_at', eb.val(now)) : eb.ref('opened_at'),
          updated_at: now,
        }))
        .where('id', 'in', rows.map((r) => r.id))
        .execute()
      if (to !== from && to === MESSAGE_STATUS.unavailable) stored.undelivered.push(...rows.map(toUndelivered))
    }
  }
  return stored
}

/** The status a report moves a message at `status` to: only a sent one, up (a delivered one stays delivered); undefined when none. */
function movedTo(status: number, report: ViberReportState): number | undefined {
  if (!REPORTABLE.includes(status)) return undefined
  const to = STATUS_OF[report]
  const failed = to === MESSAGE_STATUS.unavailable
  return (failed ? status === MESSAGE_STATUS.sent : to > status) ? to : undefined
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
      if (movedTo(row.status, state) === undefined) continue
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
 * `expired`) and returns them. Their campaigns are locked first, in id order, as every transaction that locks a
 * campaign and its messages does; a message another worker ended meanwhile is left out (the status condition).
 */
export async function expireUndelivered(db: Kysely<Database>, now: number, limit: number): Promise<UndeliveredViber[]> {
  // The literals (not parameters) let SQLite use the partial index messages_viber_awaiting.
  const due = await db.selectFrom('messages').select(['id', 'campaign_id']).where(sql<boolean>`channel = 'viber' and status = 1`).where('next_attempt_at', '<=', now).orderBy('next_attempt_at').limit(limit).execute()
  if (due.length === 0) return []
  for (const campaignId of [...new Set(due.map((m) => Number(m.campaign_id)))].sort((a, b) => a - b)) await lockCampaign(db, campaignId)
  const rows = await db
    .updateTable('messages')
    .set((eb) => ({ status: MESSAGE_STATUS.unavailable, report: eb.fn.coalesce('report', eb.val('expired')), updated_at: now }))
    .where('id', 'in', due.map((m) => m.id))
    .where('status', '=', MESSAGE_STATUS.sent)
    .returning(['id', 'campaign_id', 'account_id', 'address', 'variables', 'address_book_id'])
    .execute()
  return rows.map(toUndelivered)
}

/** Which of `ids` are Viber messages. */
export async function knownViberMessages(db: Kysely<Database>, ids: readonly number[]): Promise<Set<number>> {
  const known = new Set<number>()
  const distinct = [...new Set(ids)]
  for (let i = 0; i < distinct.length; i += 500) {
    const rows = await db.selectFrom('messages').select('id').where('id', 'in', distinct.slice(i, i + 500)).where('channel', '=', 'viber').execute()
    for (const row of rows) known.add(Number(row.id))
  }
  return known
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
  const counts = (await statusCountsOf(db, [campaignId])).get(campaignId) ?? []
  return counts.map((c) => ({ channel: c.channel, status: c.status, count: c.messages }))
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
