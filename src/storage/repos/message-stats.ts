// Statistics of campaigns and addresses. A campaign's messages per channel and status (with how many were sent,
// opened, clicked, unsubscribed) come from campaign_counts, which triggers keep as messages change (migration
// 0014): a few rows read, however many messages. Opens per country and per-address totals are read from the
// message rows.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'
import { MESSAGE_STATUS } from './messages.js'

/** A campaign's messages of one channel and status. */
export interface StatusCount {
  channel: string
  status: number
  messages: number
  sent: number
  opened: number
  clicked: number
  unsubscribed: number
}

/** Per campaign: its counts per channel and status (the sums of its campaign_counts rows; keys counting nothing left out). */
export async function statusCountsOf(db: Kysely<Database>, campaignIds: readonly number[]): Promise<Map<number, StatusCount[]>> {
  const out = new Map<number, StatusCount[]>()
  if (campaignIds.length === 0) return out
  const rows = await db
    .selectFrom('campaign_counts')
    .select((eb) => [
      'campaign_id',
      'channel',
      'status',
      eb.fn.sum<number>('messages').as('messages'),
      eb.fn.sum<number>('sent').as('sent'),
      eb.fn.sum<number>('opened').as('opened'),
      eb.fn.sum<number>('clicked').as('clicked'),
      eb.fn.sum<number>('unsubscribed').as('unsubscribed'),
    ])
    .where('campaign_id', 'in', [...campaignIds])
    .groupBy(['campaign_id', 'channel', 'status'])
    .execute()
  for (const r of rows) {
    const count = { channel: r.channel, status: r.status, messages: Number(r.messages), sent: Number(r.sent), opened: Number(r.opened), clicked: Number(r.clicked), unsubscribed: Number(r.unsubscribed) }
    if (count.messages === 0) continue
    const id = Number(r.campaign_id)
    const own = out.get(id)
    if (own) own.push(count)
    else out.set(id, [count])
  }
  return out
}

/** The campaign's messages (of every channel), or those in `statuses`. */
export async function countMessages(db: Kysely<Database>, campaignId: number, statuses?: readonly number[]): Promise<number> {
  const counts = (await statusCountsOf(db, [campaignId])).get(campaignId) ?? []
  return counts.filter((c) => !statuses || statuses.includes(c.status)).reduce((sum, c) => sum + c.messages, 0)
}

/**
 * What a campaign's messages owe once those never sent are left out: each message's own price where it has one
 * (SMS), `pricePerMessage` otherwise (email).
 */
export async function owedMicros(db: Kysely<Database>, campaignId: number, pricePerMessage: number): Promise<number> {
  const row = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.sum<number>(eb.fn.coalesce('price_micros', eb.val(pricePerMessage))).as('owed'))
    .where('campaign_id', '=', campaignId)
    .where('status', '!=', MESSAGE_STATUS.notSent)
    .executeTakeFirstOrThrow()
  return Number(row.owed ?? 0)
}

/** owedMicros of a campaign whose messages have no price of their own (email): from its counts, not its rows. */
export async function owedAtOnePrice(db: Kysely<Database>, campaignId: number, pricePerMessage: number): Promise<number> {
  const counts = (await statusCountsOf(db, [campaignId])).get(campaignId) ?? []
  return counts.filter((c) => c.status !== MESSAGE_STATUS.notSent).reduce((sum, c) => sum + c.messages, 0) * pricePerMessage
}

export interface MessageTotals {
  byStatus: Map<number, number>
  sent: number
  opened: number
  clicked: number
  unsubscribed: number
}

/** Per campaign: messages per status, and how many were sent, opened, clicked and unsubscribed. */
export async function totalsOf(db: Kysely<Database>, campaignIds: readonly number[]): Promise<Map<number, MessageTotals>> {
  const out = new Map<number, MessageTotals>()
  for (const [id, counts] of await statusCountsOf(db, campaignIds)) {
    const t: MessageTotals = { byStatus: new Map(), sent: 0, opened: 0, clicked: 0, unsubscribed: 0 }
    for (const c of counts) {
      t.byStatus.set(c.status, (t.byStatus.get(c.status) ?? 0) + c.messages)
      t.sent += c.sent
      t.opened += c.opened
      t.clicked += c.clicked
      t.unsubscribed += c.unsubscribed
    }
    out.set(id, t)
  }
  return out
}

/** Opens per country of a campaign. */
export async function opensByCountry(db: Kysely<Database>, campaignId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('messages')
    .select((eb) => ['country', eb.fn.countAll<number>().as('count')])
    .where('campaign_id', '=', campaignId)
    .where('country', 'is not', null)
    .groupBy('country')
    .orderBy('country')
    .execute()
  return new Map(rows.map((r) => [r.country as string, Number(r.count)]))
}

/** Per address: messages sent, opened and clicked in the account's campaigns (GET /emails/{email}/campaigns). */
export async function addressTotals(db: Kysely<Database>, accountId: number, emails: readonly string[]): Promise<Map<string, { sent: number; opened: number; clicked: number }>> {
  const out = new Map<string, { sent: number; opened: number; clicked: number }>()
  if (emails.length === 0) return out
  const rows = await db
    .selectFrom('messages')
    .select((eb) => ['address', eb.fn.count<number>('sent_at').as('sent'), eb.fn.count<number>('opened_at').as('opened'), eb.fn.count<number>('clicked_at').as('clicked')])
    .where('account_id', '=', accountId)
    .where('address', 'in', [...emails])
    .groupBy('address')
    .execute()
  for (const r of rows) out.set(r.address, { sent: Number(r.sent), opened: Number(r.opened), clicked: Number(r.clicked) })
  return out
}
