// Ending an account's access: disable/enable, delete, rotate the client secret, revoke its tokens. Each
// revocation bumps the account's credentials version (so tokens issued before, even mid-check, are
// invalid), deletes its tokens and counts one revocation, in one transaction; every process's token cache
// sees the count move within a second (services/accounts/token-cache.ts).
import * as accountsRepo from '../../storage/repos/accounts.js'
import * as credentialsRepo from '../../storage/repos/credentials.js'
import { hashSecret, randomSecret } from '../../lib/secrets.js'
import { AppError } from '../errors.js'
import { cancelUnfinishedOf } from '../email/campaigns.js'
import type { Deps } from '../types.js'

/**
 * What disabling or deleting found: `ended`, or `already_deleted` when the account was deleted before and only its
 * campaigns that may still send were canceled (again).
 */
export type AccountEnding = 'ended' | 'already_deleted'

/**
 * Refuses the account's token calls, tokens and API keys until `enableAccount`, and stops its sending: its
 * campaigns that may still send are canceled and paid back (an operator disables an account to stop it).
 */
export async function disableAccount(deps: Deps, accountId: number): Promise<AccountEnding> {
  const ending = await endAccess(deps, accountId, (tx, now) => accountsRepo.disableAccount(tx, accountId, now))
  await cancelUnfinishedOf(deps, accountId)
  return ending
}

/** Lets a disabled account get tokens again; its API keys work again too (revoke them one by one if leaked). */
export async function enableAccount(deps: Deps, accountId: number): Promise<void> {
  if (!(await accountsRepo.enableAccount(deps.db, accountId, deps.now()))) throw notFound(accountId)
}

/** Replaces the client secret and ends every token of the account; the new secret is shown once. */
export async function rotateClientSecret(deps: Deps, accountId: number): Promise<{ client_id: string; client_secret: string }> {
  const account = await accountsRepo.findAccountById(deps.db, accountId)
  if (!account || account.deletedAt !== null) throw notFound(accountId)
  const clientSecret = randomSecret(24)
  const clientSecretHash = await hashSecret(clientSecret)
  await revoke(deps, accountId, (tx, now) => accountsRepo.bumpCredentialsVersion(tx, accountId, { now, clientSecretHash }))
  return { client_id: account.clientId, client_secret: clientSecret }
}

/** Ends every access token of the account; its credentials keep working. Returns how many tokens there were. */
export async function revokeTokens(deps: Deps, accountId: number): Promise<number> {
  return revoke(deps, accountId, (tx, now) => accountsRepo.bumpCredentialsVersion(tx, accountId, { now }))
}

/**
 * Disables the account for good and revokes its API keys. Its data (lists, campaigns, messages, ledger) stays:
 * about twenty tables refer to an account without cascading deletes, and sent messages are its accounting.
 */
export async function deleteAccount(deps: Deps, accountId: number): Promise<AccountEnding> {
  const ending = await endAccess(deps, accountId, async (tx, now) => {
    if (!(await accountsRepo.markAccountDeleted(tx, accountId, now))) return false
    await credentialsRepo.revokeApiKeysOf(tx, accountId, now)
    return true
  })
  await cancelUnfinishedOf(deps, accountId)
  return ending
}

/**
 * `revoke`, except that an account already deleted is no error: the cancel of its campaigns runs after the
 * revoking transaction commits, and when it failed there (database gone, deadlock retries spent) running the
 * command again must still cancel them rather than answer not found while they keep sending.
 */
async function endAccess(deps: Deps, accountId: number, change: Parameters<typeof revoke>[2]): Promise<AccountEnding> {
  try {
    await revoke(deps, accountId, change)
    return 'ended'
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'not_found') throw err
    const account = await accountsRepo.findAccountById(deps.db, accountId)
    if (!account || account.deletedAt === null) throw err
    return 'already_deleted'
  }
}

/** Runs `change` (false: no such account) with the account's tokens deleted and one revocation counted. */
async function revoke(
  deps: Deps,
  accountId: number,
  change: (tx: Deps['db'], now: number) => Promise<boolean>,
): Promise<number> {
  const now = deps.now()
  return deps.db.transaction().execute(async (tx) => {
    if (!(await change(tx, now))) throw notFound(accountId)
    const revoked = await credentialsRepo.deleteAccessTokensOf(tx, accountId)
    await credentialsRepo.recordRevocation(tx, now)
    return revoked
  })
}

function notFound(accountId: number): AppError {
  return new AppError('not_found', `account ${accountId} not found`)
}
