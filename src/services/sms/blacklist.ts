// The SMS blacklist (API.md 4.11): numbers the account never sends SMS to, whichever campaign or list holds
// them (services/sms/recipients.ts leaves them out and counts them as exceptions). Invalid numbers are
// counted and never stored.
import * as blacklistRepo from '../../storage/repos/sms-blacklist.js'
import { readPhoneList } from '../audience/phone-list.js'
import type { Deps } from '../types.js'

/** Numbers per call, as for the numbers of a list. */

export type BlacklistEntry = blacklistRepo.BlacklistEntry

export interface AddCounters {
  added: number
  exists: number
  /** Invalid numbers (a Tidings addition to SendPulse's `added` and `exists`) */
  exceptions: number
}

export async function addToSmsBlacklist(deps: Deps, accountId: number, rawPhones: readonly unknown[], description?: string): Promise<AddCounters> {
  const { phones, invalid } = readPhoneList(rawPhones)
  const added = await blacklistRepo.insertBlacklistEntries(deps.db, { accountId, phones, description: description ?? null, now: deps.now() })
  return { added, exists: rawPhones.length - invalid - added, exceptions: invalid }
}

/** Returns how many of the numbers were blacklisted. */
export async function removeFromSmsBlacklist(deps: Deps, accountId: number, rawPhones: readonly unknown[]): Promise<number> {
  return blacklistRepo.deleteBlacklistEntries(deps.db, accountId, readPhoneList(rawPhones).phones)
}

/** The whole blacklist, oldest first. */
export async function listSmsBlacklist(deps: Deps, accountId: number): Promise<BlacklistEntry[]> {
  return blacklistRepo.listBlacklistEntries(deps.db, accountId)
}

/** The entries of the given numbers that are blacklisted (GET /sms/black_list/by_numbers). */
export async function findInSmsBlacklist(deps: Deps, accountId: number, rawPhones: readonly unknown[]): Promise<BlacklistEntry[]> {
  const { phones } = readPhoneList(rawPhones)
  return phones.length === 0 ? [] : blacklistRepo.listBlacklistEntries(deps.db, accountId, phones)
}
