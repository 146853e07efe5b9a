// Tags of an account and their links to email addresses and phone numbers (any address of the account,
// not one list's contact). Deleting a tag deletes its links (foreign key cascade).
import type { Kysely, Selectable } from 'kysely'
import type { Database, TagsTable } from '../tables.js'

export type TagTargetKind = 'email' | 'phone'

export interface TagRow {
  id: number
  name: string
  color: string
}

/** Rows per multi-row insert: 5 parameters each stays far below SQLite's 32766 and PostgreSQL's 65535. */
const INSERT_CHUNK = 1000
/** Values per `in (…)` list. */
const LOOKUP_CHUNK = 500

export async function createTag(db: Kysely<Database>, tag: { accountId: number; name: string; color: string; now: number }): Promise<number> {
  const row = await db
    .insertInto('tags')
    .values({ account_id: tag.accountId, name: tag.name, color: tag.color, created_at: tag.now, updated_at: tag.now })
    .returning('id')
    .executeTakeFirstOrThrow()
  return Number(row.id)
}

export async function findTag(db: Kysely<Database>, accountId: number, id: number): Promise<TagRow | undefined> {
  const row = await db.selectFrom('tags').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst()
  return row && toTag(row)
}

/** Every tag of the account, oldest first. */
export async function listTags(db: Kysely<Database>, accountId: number): Promise<TagRow[]> {
  const rows = await db.selectFrom('tags').selectAll().where('account_id', '=', accountId).orderBy('id').execute()
  return rows.map(toTag)
}

export async function updateTag(db: Kysely<Database>, change: { accountId: number; id: number; name: string; color: string; now: number }): Promise<boolean> {
  const result = await db
    .updateTable('tags')
    .set({ name: change.name, color: change.color, updated_at: change.now })
    .where('account_id', '=', change.accountId)
    .where('id', '=', change.id)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function deleteTag(db: Kysely<Database>, accountId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('tags').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** The ids among `ids` that are tags of the account. */
export async function findTagIds(db: Kysely<Database>, accountId: number, ids: readonly number[]): Promise<Set<number>> {
  const found = new Set<number>()
  for (const chunk of chunks([...new Set(ids)], LOOKUP_CHUNK)) {
    const rows = await db.selectFrom('tags').select('id').where('account_id', '=', accountId).where('id', 'in', chunk).execute()
    for (const r of rows) found.add(Number(r.id))
  }
  return found
}

/**
 * Pins the account's tags among `tagIds` to every value; links that exist already are kept as they are.
 * Ids that are not tags of the account are skipped, so a tag deleted meanwhile (or another account's) is
 * never linked.
 */
export async function pinTags(
  db: Kysely<Database>,
  pin: { accountId: number; kind: TagTargetKind; tagIds: readonly number[]; values: readonly string[]; now: number },
): Promise<void> {
  const tagIds = [...(await findTagIds(db, pin.accountId, pin.tagIds))]
  const rows = tagIds.flatMap((tagId) =>
    [...new Set(pin.values)].map((value) => ({ tag_id: tagId, account_id: pin.accountId, kind: pin.kind, value, created_at: pin.now })),
  )
  for (const chunk of chunks(rows, INSERT_CHUNK)) {
    await db
      .insertInto('tag_links')
      .values(chunk)
      .onConflict((oc) => oc.columns(['tag_id', 'kind', 'value']).doNothing())
      .execute()
  }
}

/** Pins tags to email addresses (already normalised), e.g. the `tags` of contacts being added (API.md 4.1.1). */
export async function pinTagsToEmails(
  db: Kysely<Database>,
  pin: { accountId: number; tagIds: readonly number[]; emails: readonly string[]; now: number },
): Promise<void> {
  await pinTags(db, { accountId: pin.accountId, kind: 'email', tagIds: pin.tagIds, values: pin.emails, now: pin.now })
}

export async function unpinTags(
  db: Kysely<Database>,
  unpin: { accountId: number; kind: TagTargetKind; tagIds: readonly number[]; value: string },
): Promise<void> {
  if (unpin.tagIds.length === 0) return
  await db
    .deleteFrom('tag_links')
    .where('account_id', '=', unpin.accountId)
    .where('kind', '=', unpin.kind)
    .where('value', '=', unpin.value)
    .where('tag_id', 'in', [...unpin.tagIds])
    .execute()
}

/** The tags pinned to each of the (normalised) addresses, oldest tag first; addresses without tags are absent. */
export async function tagsOfEmails(db: Kysely<Database>, accountId: number, emails: readonly string[]): Promise<Map<string, TagRow[]>> {
  const byEmail = new Map<string, TagRow[]>()
  for (const chunk of chunks([...new Set(emails)], LOOKUP_CHUNK)) {
    const rows = await db
      .selectFrom('tag_links')
      .innerJoin('tags', 'tags.id', 'tag_links.tag_id')
      .select(['tag_links.value', 'tags.id', 'tags.name', 'tags.color'])
      .where('tag_links.account_id', '=', accountId)
      .where('tag_links.kind', '=', 'email')
      .where('tag_links.value', 'in', chunk)
      .orderBy('tags.id')
      .execute()
    for (const r of rows) {
      const tags = byEmail.get(r.value) ?? []
      tags.push({ id: Number(r.id), name: r.name, color: r.color })
      byEmail.set(r.value, tags)
    }
  }
  return byEmail
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

function toTag(row: Selectable<TagsTable>): TagRow {
  return { id: Number(row.id), name: row.name, color: row.color }
}
