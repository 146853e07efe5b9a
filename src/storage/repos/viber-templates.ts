// Texts a system Viber message (message_type 3) must equal (API.md 4.10.1), registered by the operator for an
// account: `moderation` when added, `approved` once the operator approved it.
import type { Kysely, Selectable } from 'kysely'
import type { Database, ViberTemplatesTable } from '../tables.js'

export const VIBER_TEMPLATE_STATUS = { moderation: 'moderation', approved: 'approved' } as const
export type ViberTemplateStatus = (typeof VIBER_TEMPLATE_STATUS)[keyof typeof VIBER_TEMPLATE_STATUS]

export interface ViberTemplateRow {
  id: number
  accountId: number
  text: string
  status: ViberTemplateStatus
  createdAt: number
}

export async function insertViberTemplate(db: Kysely<Database>, t: { accountId: number; text: string; now: number }): Promise<number> {
  const row = await db
    .insertInto('viber_templates')
    .values({ account_id: t.accountId, text: t.text, status: VIBER_TEMPLATE_STATUS.moderation, created_at: t.now, updated_at: t.now })
    .returning('id')
    .executeTakeFirstOrThrow()
  return Number(row.id)
}

/** False when there is no such template. */
export async function setViberTemplateStatus(db: Kysely<Database>, id: number, status: ViberTemplateStatus, now: number): Promise<boolean> {
  const result = await db.updateTable('viber_templates').set({ status, updated_at: now }).where('id', '=', id).executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Every account's templates, or one account's, oldest first. */
export async function listViberTemplates(db: Kysely<Database>, accountId?: number): Promise<ViberTemplateRow[]> {
  let query = db.selectFrom('viber_templates').selectAll()
  if (accountId !== undefined) query = query.where('account_id', '=', accountId)
  return (await query.orderBy('id').execute()).map(toTemplate)
}

/** The account's (first) template of exactly this text, of that status when one is given. */
export async function findViberTemplateByText(db: Kysely<Database>, accountId: number, text: string, status?: ViberTemplateStatus): Promise<ViberTemplateRow | undefined> {
  let query = db.selectFrom('viber_templates').selectAll().where('account_id', '=', accountId).where('text', '=', text)
  if (status !== undefined) query = query.where('status', '=', status)
  const row = await query.orderBy('id').executeTakeFirst()
  return row && toTemplate(row)
}

function toTemplate(row: Selectable<ViberTemplatesTable>): ViberTemplateRow {
  return { id: Number(row.id), accountId: Number(row.account_id), text: row.text, status: row.status as ViberTemplateStatus, createdAt: Number(row.created_at) }
}
