// The email blacklist (API.md 4.7): addresses an account never sends to. Addresses are kept in their
// stored form (lib/email-address.ts), so "a@Example.COM" and "a@example.com" are one entry.
import * as blacklistRepo from '../../storage/repos/blacklist.js'
import { distinctAddresses, normalizeEmail } from '../../lib/email-address.js'
import { AppError } from '../errors.js'
import type { Deps } from '../types.js'

/** The account's blacklisted addresses, oldest first; no `limit` means all of them. */
export async function listBlacklist(deps: Deps, accountId: number, page: { limit?: number; offset: number }): Promise<string[]> {
  return blacklistRepo.listBlacklistedEmails(deps.db, accountId, page)
}

/** Blacklists the valid addresses among `addresses` (invalid ones are skipped); re-adding one is a no-op. */
export async function addToBlacklist(deps: Deps, accountId: number, addresses: string[], comment?: string): Promise<void> {
  const emails = validAddresses(addresses)
  const now = deps.now()
  await deps.db.transaction().execute((tx) => blacklistRepo.addBlacklistedEmails(tx, { accountId, emails, comment, now }))
}

/** Removes the valid addresses among `addresses`; one that is not blacklisted is ignored. */
export async function removeFromBlacklist(deps: Deps, accountId: number, addresses: string[]): Promise<void> {
  const emails = validAddresses(addresses)
  await deps.db.transaction().execute((tx) => blacklistRepo.removeBlacklistedEmails(tx, accountId, emails))
}

/**
 * Which of `emails` the account has blacklisted, as given (each is compared in its stored form). Pass
 * `{ ...deps, db: tx }` to read inside a transaction.
 */
export async function blacklistedAmong(deps: Pick<Deps, 'db'>, accountId: number, emails: string[]): Promise<Set<string>> {
  const givenByStored = new Map<string, string[]>()
  for (const email of emails) {
    const stored = normalizeEmail(email)
    if (stored === undefined) continue
    const given = givenByStored.get(stored)
    if (given) given.push(email)
    else givenByStored.set(stored, [email])
  }
  const found = await blacklistRepo.findBlacklistedEmails(deps.db, accountId, [...givenByStored.keys()])
  return new Set([...found].flatMap((stored) => givenByStored.get(stored) ?? []))
}

function validAddresses(addresses: string[]): string[] {
  const emails = distinctAddresses(addresses)
  if (emails.length === 0) {
    throw new AppError('invalid', 'Argument emails holds no valid email address (expected Base64 of "a@example.com, b@example.com")')
  }
  return emails
}
