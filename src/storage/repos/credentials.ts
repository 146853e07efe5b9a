// Bearer credentials: short-lived access tokens and long-lived API keys, both stored as digests only.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'

export async function recordAccessToken(
  db: Kysely<Database>,
  token: { tokenHash: string; accountId: number; expiresAt: number; now: number },
): Promise<void> {
  await db
    .insertInto('access_tokens')
    .values({ token_hash: token.tokenHash, account_id: token.accountId, expires_at: token.expiresAt, created_at: token.now })
    .execute()
}

/** The account and expiry of a token that has not expired at `now`. */
export async function findLiveAccessToken(
  db: Kysely<Database>,
  tokenHash: string,
  now: number,
): Promise<{ accountId: number; expiresAt: number } | undefined> {
  const row = await db
    .selectFrom('access_tokens')
    .select(['account_id', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return row && { accountId: Number(row.account_id), expiresAt: Number(row.expires_at) }
}

export async function deleteExpiredAccessTokens(db: Kysely<Database>, now: number): Promise<number> {
  const result = await db.deleteFrom('access_tokens').where('expires_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function createApiKey(
  db: Kysely<Database>,
  key: { accountId: number; name: string; keyHash: string; now: number },
): Promise<number> {
  const row = await db
    .insertInto('api_keys')
    .values({ account_id: key.accountId, name: key.name, key_hash: key.keyHash, created_at: key.now, revoked_at: null })
    .returning('id')
    .executeTakeFirstOrThrow()
  return Number(row.id)
}

export async function findActiveApiKeyAccount(db: Kysely<Database>, keyHash: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select('account_id')
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return row && Number(row.account_id)
}

export async function listApiKeys(db: Kysely<Database>, accountId: number) {
  const rows = await db
    .selectFrom('api_keys')
    .select(['id', 'name', 'created_at', 'revoked_at'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute()
  return rows.map((r) => ({ id: Number(r.id), name: r.name, createdAt: Number(r.created_at), revokedAt: r.revoked_at === null ? null : Number(r.revoked_at) }))
}

export async function revokeApiKey(db: Kysely<Database>, accountId: number, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
