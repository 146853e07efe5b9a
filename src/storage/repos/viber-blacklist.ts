// Numbers an account never sends Viber messages to (/v2/viber-service/phone-exception), in stored form (E.164
// digits). Separate from the SMS blacklist: a number may refuse one channel and not the other.
import { sql, type Kysely } from 'kysely'
import type { Database } from '../tables.js'

/** Numbers per statement, far below both databases' bound-parameter limits (4 columns × 500 per INSERT). */
const CHUNK = 500

export interface ViberBlacklistEntry {
  id: number
  accountId: number
  phone: string
  description: string
  createdAt: number
}

/** Blacklists the numbers the account has not blacklisted yet (an entry there keeps its date and description); returns how many it added. */
export async function insertViberBlacklistEntries(db: Kysely<Database>, entry: { accountId: number; phones: readonly string[]; description: string; now: number }): Promise<number> {
  let added = 0
  for (let i = 0; i < entry.phones.length; i += CHUNK) {
    const rows = await db
      .insertInto('viber_blacklist')
      .values(entry.phones.slice(i, i + CHUNK).map((phone) => ({ account_id: entry.accountId, phone, description: entry.description, created_at: entry.now })))
      .onConflict((oc) => oc.columns(['account_id', 'phone']).doNothing())
      .returning('id')
      .execute()
    added += rows.length
  }
  return added
}

/** Returns how many of `phones` were blacklisted. */
export async function deleteViberBlacklistEntries(db: Kysely<Database>, accountId: number, phones: readonly string[]): Promise<number> {
  let removed = 0
  for (let i = 0; i < phones.length; i += CHUNK) {
    const result = await db.deleteFrom('viber_blacklist').where('account_id', '=', accountId).where('phone', 'in', phones.slice(i, i + CHUNK)).executeTakeFirst()
    removed += Number(result.numDeletedRows)
  }
  return removed
}

/** One page of the account's entries, newest first, and how many it has in all. */
export async function listViberBlacklistPage(db: Kysely<Database>, accountId: number, page: { limit: number; offset: number }): Promise<{ entries: ViberBlacklistEntry[]; total: number }> {
  const rows = await db
    .selectFrom('viber_blacklist')
    .selectAll()
    .where('account_id', '=', accountId)
    // Numbers added in one call share created_at: the id orders them.
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute()
  const { n } = await db.selectFrom('viber_blacklist').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow()
  const entries = rows.map((r) => ({ id: Number(r.id), accountId: Number(r.account_id), phone: r.phone, description: r.description, createdAt: Number(r.created_at) }))
  return { entries, total: Number(n) }
}
