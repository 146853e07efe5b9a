// Sender addresses of an account and the state of their activation: the code's hash and expiry, how many codes
// were sent in the current window, and wrong-code attempts with the lock they lead to.
import type { Kysely, Selectable } from 'kysely'
import type { Database, SendersTable } from '../tables.js'

export const SENDER_STATUS = { inactive: 'inactive', active: 'active' } as const
export type SenderStatus = (typeof SENDER_STATUS)[keyof typeof SENDER_STATUS]

export interface SenderRow {
  id: number
  accountId: number
  email: string
  name: string
  status: SenderStatus
  codeHash: string | null
  codeExpiresAt: number | null
  lockedUntil: number | null
}

export async function createSender(db: Kysely<Database>, sender: { accountId: number; email: string; name: string; now: number }): Promise<void> {
  await db
    .insertInto('senders')
    .values({
      account_id: sender.accountId,
      email: sender.email,
      name: sender.name,
      status: SENDER_STATUS.inactive,
      created_at: sender.now,
      updated_at: sender.now,
    })
    .execute()
}

/** The account's senders, oldest first. */
export async function listSenders(db: Kysely<Database>, accountId: number): Promise<SenderRow[]> {
  const rows = await db.selectFrom('senders').selectAll().where('account_id', '=', accountId).orderBy('id').execute()
  return rows.map(toSender)
}

export async function findSender(db: Kysely<Database>, accountId: number, email: string): Promise<SenderRow | undefined> {
  const row = await db.selectFrom('senders').selectAll().where('account_id', '=', accountId).where('email', '=', email).executeTakeFirst()
  return row && toSender(row)
}

export async function deleteSender(db: Kysely<Database>, accountId: number, email: string): Promise<boolean> {
  const result = await db.deleteFrom('senders').where('account_id', '=', accountId).where('email', '=', email).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/**
 * Stores a new code (replacing the previous one) unless `maxPerWindow` codes were already sent in the current
 * window; a window starts with the first code after the previous one ended. One conditional UPDATE, so
 * concurrent requests cannot exceed the limit. False when the limit is reached.
 */
export async function storeCodeWithinLimit(
  db: Kysely<Database>,
  code: { accountId: number; id: number; codeHash: string; expiresAt: number; now: number; windowMs: number; maxPerWindow: number },
): Promise<boolean> {
  const windowStart = code.now - code.windowMs
  const result = await db
    .updateTable('senders')
    .set((eb) => {
      const windowOver = eb.or([eb('codes_window_started_at', 'is', null), eb('codes_window_started_at', '<=', windowStart)])
      return {
        code_hash: code.codeHash,
        code_expires_at: code.expiresAt,
        codes_sent: eb.case().when(windowOver).then(eb.lit(1)).else(eb('codes_sent', '+', 1)).end(),
        codes_window_started_at: eb.case().when(windowOver).then(code.now).else(eb.ref('codes_window_started_at')).end(),
        updated_at: code.now,
      }
    })
    .where('account_id', '=', code.accountId)
    .where('id', '=', code.id)
    .where((eb) => eb.or([eb('codes_window_started_at', 'is', null), eb('codes_window_started_at', '<=', windowStart), eb('codes_sent', '<', code.maxPerWindow)]))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export interface ClaimedAttempt {
  /** The attempts counted so far, this one included. */
  attempts: number
  lockedUntil: number | null
  codeHash: string | null
}

/**
 * Counts an activation attempt before the code is compared, in one UPDATE, so that parallel guesses cannot
 * outrun the lock: the `maxAttempts`-th attempt locks the sender for `lockMs` (a right code then lifts it).
 * An attempt after an expired lock starts a new count. Undefined while the sender is locked.
 */
export async function claimCodeAttempt(
  db: Kysely<Database>,
  attempt: { accountId: number; id: number; now: number; maxAttempts: number; lockMs: number },
): Promise<ClaimedAttempt | undefined> {
  const row = await db
    .updateTable('senders')
    .set((eb) => ({
      failed_attempts: eb.case().when('locked_until', 'is', null).then(eb('failed_attempts', '+', 1)).else(eb.lit(1)).end(),
      locked_until: eb
        .case()
        .when(eb.and([eb('locked_until', 'is', null), eb('failed_attempts', '>=', attempt.maxAttempts - 1)]))
        // Typed: PostgreSQL reads a CASE of a bare parameter and NULL as text, which a bigint column refuses.
        .then(eb.cast<number>(eb.val(attempt.now + attempt.lockMs), 'bigint'))
        .else(null)
        .end(),
      updated_at: attempt.now,
    }))
    .where('account_id', '=', attempt.accountId)
    .where('id', '=', attempt.id)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', attempt.now)]))
    .returning(['failed_attempts', 'locked_until', 'code_hash'])
    .executeTakeFirst()
  return row && { attempts: row.failed_attempts, lockedUntil: row.locked_until === null ? null : Number(row.locked_until), codeHash: row.code_hash }
}

/** Marks the sender active and forgets its code, its attempts and any lock. */
export async function markSenderActive(db: Kysely<Database>, change: { accountId: number; id: number; now: number }): Promise<void> {
  await db
    .updateTable('senders')
    .set({ status: SENDER_STATUS.active, code_hash: null, code_expires_at: null, failed_attempts: 0, locked_until: null, updated_at: change.now })
    .where('account_id', '=', change.accountId)
    .where('id', '=', change.id)
    .execute()
}

function toSender(row: Selectable<SendersTable>): SenderRow {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    email: row.email,
    name: row.name,
    status: row.status === SENDER_STATUS.active ? SENDER_STATUS.active : SENDER_STATUS.inactive,
    codeHash: row.code_hash,
    codeExpiresAt: row.code_expires_at === null ? null : Number(row.code_expires_at),
    lockedUntil: row.locked_until === null ? null : Number(row.locked_until),
  }
}
