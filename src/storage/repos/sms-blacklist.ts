// Numbers an account never sends SMS to (API.md 4.11), in stored form (E.164 digits).
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'

/** Which of `phones` the account has blacklisted. */
export async function findBlacklistedPhones(db: Kysely<Database>, accountId: number, phones: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>()
  for (let i = 0; i < phones.length; i += 500) {
    const rows = await db.selectFrom('sms_blacklist').select('phone').where('account_id', '=', accountId).where('phone', 'in', phones.slice(i, i + 500)).execute()
    for (const row of rows) found.add(row.phone)
  }
  return found
}
