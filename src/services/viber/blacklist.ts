// The Viber phone blacklist (/v2/viber-service/phone-exception, API.md 2.10 and 4.10): numbers the account's
// Viber campaigns skip. Unlike the SMS blacklist, which counts invalid numbers and goes on, an invalid number
// here refuses the whole call (the published answer has no `exceptions` counter to report it in).
import * as blacklistRepo from '../../storage/repos/viber-blacklist.js'
import { normalizePhone } from '../../lib/phone-number.js'
import { checkPhoneCount } from '../audience/phone-list.js'
import { AppError } from '../errors.js'
import type { Deps, Page } from '../types.js'

export type ViberBlacklistEntry = blacklistRepo.ViberBlacklistEntry

export interface AddCounters {
  added: number
  /** Numbers already on the list (a number given twice in one call counts once as added, then as existing) */
  exists: number
}

/** The stored forms of the numbers given, without repeats; a 4xx naming the first that is not a valid international number. */
function readViberPhones(raw: readonly unknown[]): string[] {
  checkPhoneCount(raw.length)
  const phones = new Set<string>()
  for (const value of raw) {
    const phone = normalizePhone(value)
    if (!phone) throw new AppError('invalid', `Argument phones: ${JSON.stringify(value)} is not a valid international phone number`)
    phones.add(phone)
  }
  return [...phones]
}

/** Blacklists the numbers; all of them or, when one is not valid, none. */
export async function addToViberBlacklist(deps: Deps, accountId: number, rawPhones: readonly unknown[], description?: string): Promise<AddCounters> {
  const phones = readViberPhones(rawPhones)
  // Up to 10,000 numbers go in chunks: one transaction, so a failure leaves none of them.
  const added = await deps.db.transaction().execute((tx) => blacklistRepo.insertViberBlacklistEntries(tx, { accountId, phones, description: description ?? '', now: deps.now() }))
  return { added, exists: rawPhones.length - added }
}

/** Returns how many of the numbers were blacklisted; numbers that are not valid cannot be, and count for nothing. */
export async function removeFromViberBlacklist(deps: Deps, accountId: number, rawPhones: readonly unknown[]): Promise<number> {
  checkPhoneCount(rawPhones.length)
  const phones = [...new Set(rawPhones.map(normalizePhone).filter((p): p is string => p !== undefined))]
  return blacklistRepo.deleteViberBlacklistEntries(deps.db, accountId, phones)
}

/** One page of the blacklist, newest first, with the number of entries in all. */
export async function listViberBlacklist(deps: Deps, accountId: number, page: Page): Promise<{ entries: ViberBlacklistEntry[]; total: number }> {
  return blacklistRepo.listViberBlacklistPage(deps.db, accountId, page)
}

