// Sender IDs the operator registered for accounts (API.md 2.11, 3.4): 0 in moderation, 1 active, 2 rejected.
import type { Kysely, Selectable } from 'kysely'
import type { Database, SmsSendersTable } from '../tables.js'

export const SMS_SENDER_STATUS = { moderation: 0, active: 1, rejected: 2 } as const

export interface SmsSenderRow {
  id: number
  accountId: number
  name: string
  status: number
  createdAt: number
}

/** Registers a sender ID in moderation; undefined when the account has it already. */
export async function insertSmsSender(db: Kysely<Database>, s: { accountId: number; name: string; now: number }): Promise<number | undefined> {
  const row = await db
    .insertInto('sms_senders')
    .values({ account_id: s.accountId, name: s.name, status: SMS_SENDER_STATUS.moderation, created_at: s.now, updated_at: s.now })
    .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing())
    .returning('id')
    .executeTakeFirst()
  return row && Number(row.id)
}

export async function setSmsSenderStatus(db: Kysely<Database>, id: number, status: number, now: number): Promise<boolean> {
  const result = await db.updateTable('sms_senders').set({ status, updated_at: now }).where('id', '=', id).executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function listSmsSenders(db: Kysely<Database>, accountId?: number): Promise<SmsSenderRow[]> {
  let query = db.selectFrom('sms_senders').selectAll()
  if (accountId !== undefined) query = query.where('account_id', '=', accountId)
  return (await query.orderBy('id').execute()).map(toSender)
}

export async function findSmsSender(db: Kysely<Database>, accountId: number, name: string): Promise<SmsSenderRow | undefined> {
  const row = await db.selectFrom('sms_senders').selectAll().where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst()
  return row && toSender(row)
}

function toSender(row: Selectable<SmsSendersTable>): SmsSenderRow {
  return { id: Number(row.id), accountId: Number(row.account_id), name: row.name, status: row.status, createdAt: Number(row.created_at) }
}
