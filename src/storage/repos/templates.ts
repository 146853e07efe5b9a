// Email templates: the account's own and the system ones (account_id null).
import type { Kysely, Selectable } from 'kysely'
import type { Database, TemplatesTable } from '../tables.js'
import type { Page } from '../../services/types.js'

export interface TemplateRow {
  realId: number
  publicId: string
  /** null for a system template */
  accountId: number | null
  name: string
  nameSlug: string
  lang: string
  body: string
  description: string | null
  category: string
  createdAt: number
}

export async function createTemplate(
  db: Kysely<Database>,
  template: { accountId: number; publicId: string; name: string; nameSlug: string; lang: string; body: string; now: number },
): Promise<number> {
  const row = await db
    .insertInto('templates')
    .values({
      account_id: template.accountId,
      public_id: template.publicId,
      name: template.name,
      name_slug: template.nameSlug,
      lang: template.lang,
      body: template.body,
      created_at: template.now,
      updated_at: template.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return Number(row.id)
}

/** A template the account may read: its own or a system one, by real id or by public id. */
export async function findReadableTemplate(db: Kysely<Database>, accountId: number, ref: { realId?: number; publicId?: string }): Promise<TemplateRow | undefined> {
  let query = db
    .selectFrom('templates')
    .selectAll()
    .where((eb) => eb.or([eb('account_id', '=', accountId), eb('account_id', 'is', null)]))
  if (ref.realId !== undefined) query = query.where('id', '=', ref.realId)
  else if (ref.publicId !== undefined) query = query.where('public_id', '=', ref.publicId)
  else return undefined
  const row = await query.executeTakeFirst()
  return row && toTemplate(row)
}

/** By slug, the account's own template first, then a system one. */
export async function findTemplateBySlug(db: Kysely<Database>, accountId: number, slug: string): Promise<TemplateRow | undefined> {
  const rows = await db
    .selectFrom('templates')
    .selectAll()
    .where('name_slug', '=', slug)
    .where((eb) => eb.or([eb('account_id', '=', accountId), eb('account_id', 'is', null)]))
    .orderBy('account_id', 'desc')
    .orderBy('id')
    .execute()
  const own = rows.find((r) => r.account_id !== null)
  const row = own ?? rows[0]
  return row && toTemplate(row)
}

export async function findSystemTemplate(db: Kysely<Database>, slug: string): Promise<TemplateRow | undefined> {
  const row = await db.selectFrom('templates').selectAll().where('account_id', 'is', null).where('name_slug', '=', slug).executeTakeFirst()
  return row && toTemplate(row)
}

export async function slugTaken(db: Kysely<Database>, accountId: number, slug: string): Promise<boolean> {
  const row = await db.selectFrom('templates').select('id').where('account_id', '=', accountId).where('name_slug', '=', slug).executeTakeFirst()
  return row !== undefined
}

/** The account's own templates (`owner: 'me'`) or the system ones, oldest first. */
export async function listTemplates(db: Kysely<Database>, owner: { accountId: number } | 'system', page: Page): Promise<TemplateRow[]> {
  let query = db.selectFrom('templates').selectAll()
  query = owner === 'system' ? query.where('account_id', 'is', null) : query.where('account_id', '=', owner.accountId)
  const rows = await query.orderBy('id').limit(page.limit).offset(page.offset).execute()
  return rows.map(toTemplate)
}

/** Replaces an own template's body under a new public id; false when it is not the account's. */
export async function replaceTemplateBody(db: Kysely<Database>, change: { accountId: number; realId: number; publicId: string; body: string; now: number }): Promise<boolean> {
  const result = await db
    .updateTable('templates')
    .set({ body: change.body, public_id: change.publicId, updated_at: change.now })
    .where('id', '=', change.realId)
    .where('account_id', '=', change.accountId)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

function toTemplate(row: Selectable<TemplatesTable>): TemplateRow {
  return {
    realId: Number(row.id),
    publicId: row.public_id,
    accountId: row.account_id === null ? null : Number(row.account_id),
    name: row.name,
    nameSlug: row.name_slug,
    lang: row.lang,
    body: row.body,
    description: row.description,
    category: row.category,
    createdAt: Number(row.created_at),
  }
}
