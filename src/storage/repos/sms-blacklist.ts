// Numbers an account never sends SMS to (API.md 4.11), in stored form (E.164 digits).
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'

/** Numbers per statement, far below both databases' bound-parameter limits. */
const CHUNK = 500

export interface BlacklistEntry {
  phone: string
  description: string | null
  createdAt: number
}

/** A channel's phone blacklist: SMS campaigns skip the one, Viber campaigns the other. */
export type PhoneBlacklist = 'sms_blacklist' | 'viber_blacklist'

/** Which of `phones` the account has blacklisted for SMS (or, given `viber_blacklist`, for Viber). */
export async function findBlacklistedPhones(db: Kysely<Database>, accountId: number, phones: readonly string[], blacklist: PhoneBlacklist = 'sms_blacklist'): Promise<Set<string>> {
  const found = new Set<string>()
  for (let i = 0; i < phones.length; i += CHUNK) {
    const rows = await db.selectFrom(blacklist).select('phone').where('account_id', '=', accountId).where('phone', 'in', phones.slice(i, i + CHUNK)).execute()
    for (const row of rows) found.add(row.phone)
  }
  return found
}

/** Blacklists the numbers the account has not blacklisted yet (an entry there keeps its date and description); returns how many it added. */
export async function insertBlacklistEntries(db: Kysely<Database>, entry: { accountId: number; phones: readonly string[]; description: string | null; now: number }): Promise<number> {
  let added = 0
  for (let i = 0; i < entry.phones.length; i += CHUNK) {
    const rows = await db
      .insertInto('sms_blacklist')
      .values(entry.phones.slice(i, i + CHUNK).map((phone) => ({ account_id: entry.accountId, phone, description: entry.description, created_at: entry.now })))
      .onConflict((oc) => oc.columns(['account_id', 'phone']).doNothing())
      .returning('phone')
      .execute()
    added += rows.length
  }
  return added
}

/** Returns how many of `phones` were blacklisted. */
export async function deleteBlacklistEntries(db: Kysely<Database>, accountId: number, phones: readonly string[]): Promise<number> {
  let removed = 0
  for (let i = 0; i < phones.length; i += CHUNK) {
    const result = await db.deleteFrom('sms_blacklist').where('account_id', '=', accountId).where('phone', 'in', phones.slice(i, i + CHUNK)).executeTakeFirst()
    removed += Number(result.numDeletedRows)
  }
  return removed
}

/** The account's entries, oldest first; only those of `phones` when given. */
export async function listBlacklistEntries(db: Kysely<Database>, accountId: number, phones?: readonly string[]): Promise<BlacklistEntry[]> {
  const out: BlacklistEntry[] = []
  const chunks = phones ? Array.from({ length: Math.ceil(phones.length / CHUNK) }, (_, i) => phones.slice(i * CHUNK, (i + 1) * CHUNK)) : [undefined]
  for (const chunk of chunks) {
    let query = db.selectFrom('sms_blacklist').select(['phone', 'description', 'created_at']).where('account_id', '=', accountId)
    if (chunk) query = query.where('phone', 'in', chunk)
    for (const row of await query.orderBy('created_at').orderBy('phone').execute()) {
      out.push({ phone: row.phone, description: row.description, createdAt: Number(row.created_at) })
    }
  }
  return out
}
