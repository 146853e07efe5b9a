// OAuth client_credentials: exchanging client credentials for access tokens, and resolving bearer tokens.
import * as accountsRepo from '../../storage/repos/accounts.js'
import type { AccountRow } from '../../storage/repos/accounts.js'
import * as credentialsRepo from '../../storage/repos/credentials.js'
import { DECOY_SECRET_HASH, digestToken, randomSecret, verifySecret } from '../../lib/secrets.js'
import { ConcurrencyGate } from '../../lib/concurrency-gate.js'
import { AppError } from '../errors.js'
import type { TokenCache } from './token-cache.js'
import type { Deps } from '../types.js'

/**
 * Secret checks (scrypt, 16 MiB and ~45 ms each on this project's 2-core CI) run on libuv's thread pool,
 * 4 threads unless UV_THREADPOOL_SIZE says otherwise, which DNS look-ups of webhook deliveries also need.
 * At most 2 checks run at once, leaving 2 threads free: ~44 checks a second.
 */
export const MAX_SECRET_CHECKS = 2
/** Checks waiting for a thread: 64 is ~1.5 s of work; beyond that a token call is refused at once. */
export const MAX_QUEUED_SECRET_CHECKS = 64
/** Per process, like the thread pool it protects. */
const secretChecks = new ConcurrencyGate({ limit: MAX_SECRET_CHECKS, queue: MAX_QUEUED_SECRET_CHECKS })

/** The token call's answer when too many secret checks are running and waiting (COMPAT.md: 401 + Retry-After). */
export class SecretChecksBusy extends AppError {
  constructor() {
    super('invalid_client', 'Client authentication failed.', { headers: { 'Retry-After': '1' } })
  }
}

export interface TokenAnswer {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
}

/** Issues an access token for valid client credentials of an enabled account; throws `invalid_client` otherwise. */
export async function issueToken(deps: Deps, clientId: string, clientSecret: string): Promise<TokenAnswer> {
  const account = await verifyClientCredentials(deps, clientId, clientSecret)
  const token = randomSecret(32)
  const now = deps.now()
  const ttl = deps.config.tokenTtlSeconds
  await credentialsRepo.recordAccessToken(deps.db, {
    tokenHash: digestToken(token),
    accountId: account.id,
    // The version read before the secret check: a rotation or revocation meanwhile leaves this token invalid.
    credentialsVersion: account.credentialsVersion,
    expiresAt: now + ttl * 1000,
    now,
  })
  return { access_token: token, token_type: 'Bearer', expires_in: ttl }
}

/**
 * The enabled account whose client credentials these are; throws `invalid_client` otherwise (SecretChecksBusy when
 * too many checks are running: not a failed guess). Shared by the token call and the console's sign-in.
 */
export async function verifyClientCredentials(deps: Deps, clientId: string, clientSecret: string): Promise<AccountRow> {
  // PostgreSQL text cannot hold NUL (the query would fail: a 500): no client id of ours has one.
  const account = clientId.includes('\u0000') ? undefined : await accountsRepo.findAccountByClientId(deps.db, clientId)
  // Verify against a decoy when the id is unknown, so the answer time does not tell which ids exist.
  const check = await secretChecks.run(() => verifySecret(clientSecret, account?.clientSecretHash ?? DECOY_SECRET_HASH))
  if (!check.admitted) throw new SecretChecksBusy()
  if (!account || !check.value || account.disabledAt !== null) throw new AppError('invalid_client', 'Client authentication failed.')
  return account
}

/**
 * The account a bearer credential (access token or API key) belongs to: a number when this process knows it and
 * needs no query (most calls; answered without a promise), else a promise of the account or of undefined when
 * the credential is not valid.
 */
export function resolveBearer(deps: Deps, tokens: TokenCache, credential: string): number | Promise<number | undefined> {
  return tokens.remembered(credential, deps.now()) ?? tokens.findAccount(deps, credential)
}

/** Removes expired tokens; run periodically so the table stays small. */
export async function purgeExpiredTokens(deps: Deps): Promise<number> {
  return credentialsRepo.deleteExpiredAccessTokens(deps.db, deps.now())
}
