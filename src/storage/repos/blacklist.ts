// The account's email blacklist (API.md 2.7): addresses never to be sent to, with an optional comment.
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../tables.js'

type Db = Kysely<Database> | Transaction<Database>

/** Rows or IN-list items per statement: far below SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500

/** The account's blacklisted addresses, oldest first; no `limit` means all of them. */
export async function listBlacklistedEmails(db: Db, accountId: number, page: { limit?: number; offset: number }): Promise<string[]> {
  const rows = await db
    .selectFrom('email_blacklist')
    .select('email')
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('email')
    // SQLite accepts OFFSET only after a LIMIT, so "everything" is the largest limit both databases take.
    .limit(page.limit ?? Number.MAX_SAFE_INTEGER)
    .offset(page.offset)
    .execute()
  return rows.map((r) => r.email)
}

/**
 * Adds addresses; one already there keeps its place in the list, and its comment is replaced only when
 * a comment is given.
 */
export async function addBlacklistedEmails(db: Db, entry: { accountId: number; emails: string[]; comment?: string; now: number }): Promise<void> {
  for (const emails of chunks(entry.emails)) {
    await db
      .insertInto('email_blacklist')
      .values(emails.map((email) => ({ account_id: entry.accountId, email, comment: entry.comment ?? null, created_at: entry.now })))
      .onConflict((oc) => {
        const target = oc.columns(['account_id', 'email'])
        return entry.comment === undefined ? target.doNothing() : target.doUpdateSet({ comment: entry.comment })
      })
      .execute()
  }
}

export async function removeBlacklistedEmails(db: Db, accountId: number, emails: string[]): Promise<void> {
  for (const chunk of chunks(emails)) {
    await db.deleteFrom('email_blacklist').where('account_id', '=', accountId).where('email', 'in', chunk).execute()
  }
}

/** Which of these (stored-form) addresses the account has blacklisted. */
export async function findBlacklistedEmails(db: Db, accountId: number, emails: string[]): Promise<Set<string>> {
  const found = new Set<string>()
  // Most accounts blacklist nobody: one look saves a query per 500 addresses of every import batch.
  if (emails.length > CHUNK && !(await db.selectFrom('email_blacklist').select('email').where('account_id', '=', accountId).limit(1).executeTakeFirst())) {
    return found
  }
  for (const chunk of chunks(emails)) {
    const rows = await db.selectFrom('email_blacklist').select('email').where('account_id', '=', accountId).where('email', 'in', chunk).execute()
    for (const row of rows) found.add(row.email)
  }
  return found
}

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK))
  return out
}
