// Bearer credentials: short-lived access tokens and long-lived API keys, both stored as digests only, and
// the revocation counter that tells every process to forget the tokens it remembers.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'

export async function recordAccessToken(
  db: Kysely<Database>,
  token: { tokenHash: string; accountId: number; credentialsVersion: number; expiresAt: number; now: number },
): Promise<void> {
  await db
    .insertInto('access_tokens')
    .values({
      token_hash: token.tokenHash,
      account_id: token.accountId,
      credentials_version: token.credentialsVersion,
      expires_at: token.expiresAt,
      created_at: token.now,
    })
    .execute()
}

/**
 * The account and expiry of a token that has not expired at `now`, of an enabled account, issued under the
 * account's current credentials version (a token whose secret check raced a rotation does not count).
 */
export async function findLiveAccessToken(
  db: Kysely<Database>,
  tokenHash: string,
  now: number,
): Promise<{ accountId: number; expiresAt: number } | undefined> {
  const row = await db
    .selectFrom('access_tokens')
    .innerJoin('accounts', 'accounts.id', 'access_tokens.account_id')
    .select(['access_tokens.account_id', 'access_tokens.expires_at'])
    .where('access_tokens.token_hash', '=', tokenHash)
    .where('access_tokens.expires_at', '>', now)
    .whereRef('access_tokens.credentials_version', '=', 'accounts.credentials_version')
    .where('accounts.disabled_at', 'is', null)
    .executeTakeFirst()
  return row && { accountId: Number(row.account_id), expiresAt: Number(row.expires_at) }
}

/** Forgets every access token of the account; returns how many there were. */
export async function deleteAccessTokensOf(db: Kysely<Database>, accountId: number): Promise<number> {
  const result = await db.deleteFrom('access_tokens').where('account_id', '=', accountId).executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Counts one revocation; every process's token cache drops its entries when it sees the count move. */
export async function recordRevocation(db: Kysely<Database>, now: number): Promise<void> {
  await db
    .updateTable('credential_revocations')
    .set((eb) => ({ generation: eb('generation', '+', 1), updated_at: now }))
    .where('id', '=', 1)
    .execute()
}

export async function findRevocationGeneration(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('credential_revocations').select('generation').where('id', '=', 1).executeTakeFirstOrThrow()
  return Number(row.generation)
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

/** The account of an API key that is not revoked, while that account is enabled. */
export async function findActiveApiKeyAccount(db: Kysely<Database>, keyHash: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select('api_keys.account_id')
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .where('accounts.disabled_at', 'is', null)
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

/** Revokes every API key of the account that is still active. */
export async function revokeApiKeysOf(db: Kysely<Database>, accountId: number, now: number): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: now }).where('account_id', '=', accountId).where('revoked_at', 'is', null).execute()
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

/** The id and account of an API key that is not revoked, while that account is enabled (console sign-in). */
export async function findActiveApiKey(db: Kysely<Database>, keyHash: string): Promise<{ id: number; accountId: number; credentialsVersion: number } | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select(['api_keys.id', 'api_keys.account_id', 'accounts.credentials_version'])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .where('accounts.disabled_at', 'is', null)
    .executeTakeFirst()
  return row && { id: Number(row.id), accountId: Number(row.account_id), credentialsVersion: Number(row.credentials_version) }
}
