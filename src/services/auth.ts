// OAuth client_credentials: exchanging client credentials for access tokens, and resolving bearer tokens.
import * as accountsRepo from '../storage/repos/accounts.js'
import * as credentialsRepo from '../storage/repos/credentials.js'
import { DECOY_SECRET_HASH, digestToken, randomSecret, verifySecret } from '../lib/secrets.js'
import { AppError } from './errors.js'
import type { Deps } from './types.js'

export const MAX_SECRET_CHECKS = 2

export interface TokenAnswer {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
}

/** Issues an access token for valid client credentials; throws `invalid_client` otherwise. */
export async function issueToken(deps: Deps, clientId: string, clientSecret: string): Promise<TokenAnswer> {
  const account = await accountsRepo.findAccountByClientId(deps.db, clientId)
  // Verify against a decoy when the id is unknown, so the answer time does not tell which ids exist.
  const valid = await verifySecret(clientSecret, account?.clientSecretHash ?? DECOY_SECRET_HASH)
  if (!account || !valid) throw new AppError('invalid_client', 'Client authentication failed.')

  const token = randomSecret(32)
  const now = deps.now()
  const ttl = deps.config.tokenTtlSeconds
  await credentialsRepo.recordAccessToken(deps.db, { tokenHash: digestToken(token), accountId: account.id, expiresAt: now + ttl * 1000, now })
  return { access_token: token, token_type: 'Bearer', expires_in: ttl }
}

/**
 * Access tokens seen by this process, by digest. A token is never revoked, only expires, and an entry is
 * used only before the expiry stored with it: remembering tokens saves a query per request and changes no
 * answer. API keys can be revoked from another process, so they are always read from the database.
 */
const knownTokens = new WeakMap<Deps['db'], Map<string, { accountId: number; expiresAt: number }>>()
const MAX_KNOWN_TOKENS = 10_000

/** The account a bearer credential (access token or API key) belongs to, or undefined when it is not valid. */
export async function resolveBearer(deps: Deps, credential: string): Promise<number | undefined> {
  const digest = digestToken(credential)
  let known = knownTokens.get(deps.db)
  if (!known) knownTokens.set(deps.db, (known = new Map()))
  const now = deps.now()
  const remembered = known.get(digest)
  if (remembered && remembered.expiresAt > now) return remembered.accountId
  const token = await credentialsRepo.findLiveAccessToken(deps.db, digest, now)
  if (token) {
    if (known.size >= MAX_KNOWN_TOKENS) known.clear()
    known.set(digest, token)
    return token.accountId
  }
  return credentialsRepo.findActiveApiKeyAccount(deps.db, digest)
}

/** Removes expired tokens; run periodically so the table stays small. */
export async function purgeExpiredTokens(deps: Deps): Promise<number> {
  return credentialsRepo.deleteExpiredAccessTokens(deps.db, deps.now())
}
