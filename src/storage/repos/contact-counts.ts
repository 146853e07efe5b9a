// The per-list contact counts (table contact_counts). Only repos/contacts.ts changes them, in the same
// transaction as the contacts it changes, so they always equal a count of the rows.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'

export interface CountChange {
  bookId: number
  status: number
  withPhone: boolean
  delta: number
}

/**
 * Adds the changes, summed per key. Keys are written in one order so concurrent writers cannot deadlock.
 * A list some contacts left gets a new generation: positions in its pages may have moved.
 */
export async function applyCountChanges(db: Kysely<Database>, changes: readonly CountChange[]): Promise<void> {
  const summed = new Map<string, CountChange>()
  for (const c of changes) {
    const key = `${c.bookId}:${c.status}:${c.withPhone ? 1 : 0}`
    const entry = summed.get(key)
    if (entry) entry.delta += c.delta
    else summed.set(key, { ...c })
  }
  const rows = [...summed.values()]
    .filter((c) => c.delta !== 0)
    .sort((a, b) => a.bookId - b.bookId || a.status - b.status || Number(a.withPhone) - Number(b.withPhone))
    .map((c) => ({ address_book_id: c.bookId, status: c.status, with_phone: c.withPhone ? 1 : 0, count: c.delta }))
  if (rows.length === 0) return
  const left = [...new Set(rows.filter((r) => r.count < 0).map((r) => r.address_book_id))]
  await db
    .insertInto('contact_counts')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['address_book_id', 'status', 'with_phone']).doUpdateSet({ count: (eb) => eb('contact_counts.count', '+', eb.ref('excluded.count')) }),
    )
    .execute()
  if (left.length > 0) {
    await db
      .updateTable('address_books')
      .set((eb) => ({ contacts_generation: eb('contacts_generation', '+', 1) }))
      .where('id', 'in', left)
      .execute()
  }
}

export interface CountRow {
  bookId: number
  status: number
  withPhone: boolean
  count: number
}

export async function readCounts(db: Kysely<Database>, bookIds: readonly number[]): Promise<CountRow[]> {
  if (bookIds.length === 0) return []
  const rows = await db.selectFrom('contact_counts').selectAll().where('address_book_id', 'in', [...bookIds]).where('count', '<>', 0).execute()
  return rows.map((r) => ({ bookId: Number(r.address_book_id), status: r.status, withPhone: r.with_phone === 1, count: Number(r.count) }))
}
