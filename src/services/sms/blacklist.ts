// The SMS blacklist (API.md 4.11): numbers the account never sends SMS to, whichever campaign or list holds
// them (services/sms/recipients.ts leaves them out and counts them as exceptions). Invalid numbers are
// counted and never stored.
import * as blacklistRepo from '../../storage/repos/sms-blacklist.js'
import { normalizePhone } from '../../lib/phone-number.js'
import { AppError } from '../errors.js'
import type { Deps } from '../types.js'

/** Numbers per call, as for the numbers of a list. */
export const MAX_NUMBERS_PER_CALL = 10_000

export type BlacklistEntry = blacklistRepo.BlacklistEntry

export interface AddCounters {
  added: number
  exists: number
  /** Invalid numbers (a Tidings addition to SendPulse's `added` and `exists`) */
  exceptions: number
}

export async function addToSmsBlacklist(deps: Deps, accountId: number, rawPhones: readonly unknown[], description?: string): Promise<AddCounters> {
  const { phones, invalid } = readNumbers(rawPhones)
  const added = await blacklistRepo.insertBlacklistEntries(deps.db, { accountId, phones, description: description ?? null, now: deps.now() })
  return { added, exists: rawPhones.length - invalid - added, exceptions: invalid }
}

/** Returns how many of the numbers were blacklisted. */
export async function removeFromSmsBlacklist(deps: Deps, accountId: number, rawPhones: readonly unknown[]): Promise<number> {
  return blacklistRepo.deleteBlacklistEntries(deps.db, accountId, readNumbers(rawPhones).phones)
}

/** The whole blacklist, oldest first. */
export async function listSmsBlacklist(deps: Deps, accountId: number): Promise<BlacklistEntry[]> {
  return blacklistRepo.listBlacklistEntries(deps.db, accountId)
}

/** The entries of the given numbers that are blacklisted (GET /sms/black_list/by_numbers). */
export async function findInSmsBlacklist(deps: Deps, accountId: number, rawPhones: readonly unknown[]): Promise<BlacklistEntry[]> {
  const { phones } = readNumbers(rawPhones)
  return phones.length === 0 ? [] : blacklistRepo.listBlacklistEntries(deps.db, accountId, phones)
}

/** The distinct stored forms of the valid numbers, and how many items were not valid numbers. */
function readNumbers(raw: readonly unknown[]): { phones: string[]; invalid: number } {
  if (raw.length === 0) throw new AppError('invalid', 'Argument phones missing')
  if (raw.length > MAX_NUMBERS_PER_CALL) throw new AppError('invalid', `Argument phones may hold at most ${MAX_NUMBERS_PER_CALL} numbers`)
  const phones = new Set<string>()
  let invalid = 0
  for (const value of raw) {
    const phone = normalizePhone(value)
    if (phone) phones.add(phone)
    else invalid++
  }
  return { phones: [...phones], invalid }
}
