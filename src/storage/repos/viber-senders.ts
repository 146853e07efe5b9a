// Viber sender names the operator registered for accounts (API.md 2.10): `moderation` when added, then
// `verified` (campaigns may use it) or `blocked`.
import type { Kysely, Selectable } from 'kysely'
import type { Database, ViberSendersTable } from '../tables.js'

export const VIBER_SENDER_STATUS = { moderation: 'moderation', verified: 'verified', blocked: 'blocked' } as const
export type ViberSenderStatus = (typeof VIBER_SENDER_STATUS)[keyof typeof VIBER_SENDER_STATUS]

/** What the operator gives when registering a name; the optional fields are '' when not given. */
export interface ViberSenderProfile {
  name: string
  serviceType: string
  webSite: string
  description: string
  /** ISO 3166 alpha-2, or '' */
  country: string
  trafficType: string
}

export interface ViberSenderRow extends ViberSenderProfile {
  id: number
  accountId: number
  status: ViberSenderStatus
  adminComment: string | null
  createdAt: number
}

/** Registers a name in moderation; undefined when the account has that name already. */
export async function insertViberSender(db: Kysely<Database>, s: ViberSenderProfile & { accountId: number; now: number }): Promise<number | undefined> {
  const row = await db
    .insertInto('viber_senders')
    .values({
      account_id: s.accountId,
      name: s.name,
      status: VIBER_SENDER_STATUS.moderation,
      service_type: s.serviceType,
      web_site: s.webSite,
      description: s.description,
      country: s.country,
      traffic_type: s.trafficType,
      admin_comment: null,
      created_at: s.now,
      updated_at: s.now,
    })
    .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing())
    .returning('id')
    .executeTakeFirst()
  return row && Number(row.id)
}

/** Sets the status (and the comment, when one is given); undefined when there is no such sender. */
export async function setViberSenderStatus(db: Kysely<Database>, change: { id: number; status: ViberSenderStatus; adminComment?: string; now: number }): Promise<ViberSenderRow | undefined> {
  const row = await db
    .updateTable('viber_senders')
    .set({ status: change.status, updated_at: change.now, ...(change.adminComment === undefined ? {} : { admin_comment: change.adminComment }) })
    .where('id', '=', change.id)
    .returningAll()
    .executeTakeFirst()
  return row && toSender(row)
}

/** Every account's senders, or one account's, oldest first. */
export async function listViberSenders(db: Kysely<Database>, accountId?: number): Promise<ViberSenderRow[]> {
  let query = db.selectFrom('viber_senders').selectAll()
  if (accountId !== undefined) query = query.where('account_id', '=', accountId)
  return (await query.orderBy('id').execute()).map(toSender)
}

/** The account's sender of that id; another account's is not found. */
export async function findViberSender(db: Kysely<Database>, accountId: number, id: number): Promise<ViberSenderRow | undefined> {
  const row = await db.selectFrom('viber_senders').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst()
  return row && toSender(row)
}

function toSender(row: Selectable<ViberSendersTable>): ViberSenderRow {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    name: row.name,
    status: row.status as ViberSenderStatus,
    serviceType: row.service_type,
    webSite: row.web_site,
    description: row.description,
    country: row.country,
    trafficType: row.traffic_type,
    adminComment: row.admin_comment,
    createdAt: Number(row.created_at),
  }
}
