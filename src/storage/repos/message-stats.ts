// Statistics read from the message rows: per campaign (by status, opened, clicked, by country) and per address.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'
import { MESSAGE_STATUS } from './messages.js'

export async function countMessages(db: Kysely<Database>, campaignId: number, statuses?: readonly number[]): Promise<number> {
  let query = db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('count')).where('campaign_id', '=', campaignId)
  if (statuses) query = query.where('status', 'in', [...statuses])
  return Number((await query.executeTakeFirstOrThrow()).count)
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
  if (campaignIds.length === 0) return out
  const rows = await db
    .selectFrom('messages')
    .select((eb) => [
      'campaign_id',
      'status',
      eb.fn.countAll<number>().as('count'),
      eb.fn.count<number>('sent_at').as('sent'),
      eb.fn.count<number>('opened_at').as('opened'),
      eb.fn.count<number>('clicked_at').as('clicked'),
      eb.fn.count<number>('unsubscribed_at').as('unsubscribed'),
    ])
    .where('campaign_id', 'in', [...campaignIds])
    .groupBy(['campaign_id', 'status'])
    .execute()
  for (const r of rows) {
    const id = Number(r.campaign_id)
    let t = out.get(id)
    if (!t) out.set(id, (t = { byStatus: new Map(), sent: 0, opened: 0, clicked: 0, unsubscribed: 0 }))
    t.byStatus.set(r.status, Number(r.count))
    t.sent += Number(r.sent)
    t.opened += Number(r.opened)
    t.clicked += Number(r.clicked)
    t.unsubscribed += Number(r.unsubscribed)
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
