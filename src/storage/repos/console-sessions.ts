// Web console sessions (migration 0019): rows keyed by the digest of the cookie's id.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'

export interface NewConsoleSession {
  sessionHash: string
  accountId: number
  apiKeyId: number | null
  credentialsVersion: number
  now: number
  expiresAt: number
}

export async function insertConsoleSession(db: Kysely<Database>, session: NewConsoleSession): Promise<void> {
  await db
    .insertInto('console_sessions')
    .values({
      session_hash: session.sessionHash,
      account_id: session.accountId,
      api_key_id: session.apiKeyId,
      credentials_version: session.credentialsVersion,
      created_at: session.now,
      last_seen_at: session.now,
      expires_at: session.expiresAt,
    })
    .execute()
}

/**
 * Deletes the account's sessions beyond its `keep` newest. Sign-in is not counted by the request limit, so without
 * a bound one account's credentials could add rows as fast as it signs in (an API key costs no scrypt).
 */
export async function keepNewestConsoleSessions(db: Kysely<Database>, accountId: number, keep: number): Promise<void> {
  const newest = db.selectFrom('console_sessions').select('session_hash').where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('session_hash').limit(keep)
  await db.deleteFrom('console_sessions').where('account_id', '=', accountId).where('session_hash', 'not in', newest).execute()
}

/**
 * The account and last activity of a session that is neither past its absolute expiry nor idle since `idleSince`,
 * whose account is enabled and still on the credentials version of the sign-in, and whose API key (if it signed in
 * with one) is not revoked.
 */
export async function findLiveConsoleSession(
  db: Kysely<Database>,
  sessionHash: string,
  now: number,
  idleSince: number,
): Promise<{ accountId: number; lastSeenAt: number; expiresAt: number } | undefined> {
  const row = await db
    .selectFrom('console_sessions')
    .innerJoin('accounts', 'accounts.id', 'console_sessions.account_id')
    .leftJoin('api_keys', 'api_keys.id', 'console_sessions.api_key_id')
    .select(['console_sessions.account_id', 'console_sessions.last_seen_at', 'console_sessions.expires_at'])
    .where('console_sessions.session_hash', '=', sessionHash)
    .where('console_sessions.expires_at', '>', now)
    .where('console_sessions.last_seen_at', '>', idleSince)
    .whereRef('console_sessions.credentials_version', '=', 'accounts.credentials_version')
    .where('accounts.disabled_at', 'is', null)
    .where((eb) => eb.or([eb('console_sessions.api_key_id', 'is', null), eb('api_keys.revoked_at', 'is', null)]))
    .executeTakeFirst()
  return row && { accountId: Number(row.account_id), lastSeenAt: Number(row.last_seen_at), expiresAt: Number(row.expires_at) }
}

export async function touchConsoleSession(db: Kysely<Database>, sessionHash: string, now: number): Promise<void> {
  await db.updateTable('console_sessions').set({ last_seen_at: now }).where('session_hash', '=', sessionHash).execute()
}

export async function deleteConsoleSession(db: Kysely<Database>, sessionHash: string): Promise<boolean> {
  const result = await db.deleteFrom('console_sessions').where('session_hash', '=', sessionHash).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** Deletes the sessions past their absolute expiry or idle since `idleSince`; returns how many. */
export async function deleteExpiredConsoleSessions(db: Kysely<Database>, now: number, idleSince: number): Promise<number> {
  const result = await db
    .deleteFrom('console_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleSince)]))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
