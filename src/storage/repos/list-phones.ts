// The numbers of mailing lists (API.md 4.11), apart from the lists' email contacts.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'
import { CONTACT_STATUS } from './contacts.js'

/** The active numbers of a list that the account has not blacklisted, with their variables, in id order. */
export async function sendableNumbersOf(db: Kysely<Database>, accountId: number, bookId: number): Promise<{ phone: string; variables: string }[]> {
  return db
    .selectFrom('list_phones as p')
    .select(['p.phone', 'p.variables'])
    .where('p.address_book_id', '=', bookId)
    .where('p.status', '=', CONTACT_STATUS.active)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('sms_blacklist as b').select('b.phone').where('b.account_id', '=', accountId).whereRef('b.phone', '=', 'p.phone'))))
    .orderBy('p.id')
    .execute()
}

/** How many numbers a list has, whatever their status. */
export async function countNumbersOf(db: Kysely<Database>, bookId: number): Promise<number> {
  const row = await db.selectFrom('list_phones').select((eb) => eb.fn.countAll<number>().as('n')).where('address_book_id', '=', bookId).executeTakeFirstOrThrow()
  return Number(row.n)
}
