// Viber sender names (API.md 2.10): the operator registers one for an account (`tidings viber senders add`),
// then verifies or blocks it; a campaign may only use a verified one of its own account (API.md 7).
import * as sendersRepo from '../../storage/repos/viber-senders.js'
import { AppError } from '../errors.js'
import { getAccount } from '../accounts/accounts.js'
import type { Deps } from '../types.js'

const { VIBER_SENDER_STATUS } = sendersRepo
export { VIBER_SENDER_STATUS }
export type ViberSender = sendersRepo.ViberSenderRow
export type ViberSenderProfile = sendersRepo.ViberSenderProfile

/** Control characters: PostgreSQL refuses NUL, and none belongs in a name or a one-line field. */
const CONTROL = /[\u0000-\u001f\u007f]/
/** The free-text fields of a sender and their longest value. */
const FIELD_LIMITS = { name: 100, serviceType: 100, webSite: 255, trafficType: 100, description: 1000 } as const

/** The profile as stored: fields trimmed, the country upper-cased; a 4xx naming the first field that is not valid. */
export function readSenderProfile(input: Partial<ViberSenderProfile> & { name: string }): ViberSenderProfile {
  const profile: ViberSenderProfile = {
    name: input.name.trim(),
    serviceType: (input.serviceType ?? '').trim(),
    webSite: (input.webSite ?? '').trim(),
    description: (input.description ?? '').trim(),
    country: (input.country ?? '').trim().toUpperCase(),
    trafficType: (input.trafficType ?? '').trim(),
  }
  if (profile.name === '') throw new AppError('invalid', 'The sender name must not be blank')
  for (const [field, max] of Object.entries(FIELD_LIMITS) as [keyof typeof FIELD_LIMITS, number][]) {
    const value = profile[field]
    // Characters as people count them: an emoji is one.
    if ([...value].length > max) throw new AppError('invalid', `The sender's ${field} must be at most ${max} characters`)
    // A description may run over several lines.
    if (field !== 'description' ? CONTROL.test(value) : /[\u0000\u007f]/.test(value)) throw new AppError('invalid', `The sender's ${field} must not hold control characters`)
  }
  if (profile.country !== '' && !/^[A-Z]{2}$/.test(profile.country)) throw new AppError('invalid', 'The country must be a two-letter code (ISO 3166), e.g. UA')
  return profile
}

export async function registerViberSender(deps: Deps, accountId: number, input: Partial<ViberSenderProfile> & { name: string }): Promise<number> {
  if ((await getAccount(deps, accountId)).deletedAt !== null) throw new AppError('not_found', `account ${accountId} not found`)
  const profile = readSenderProfile(input)
  const id = await sendersRepo.insertViberSender(deps.db, { ...profile, accountId, now: deps.now() })
  if (id === undefined) throw new AppError('conflict', `The account already has the Viber sender "${profile.name}"`)
  return id
}

/** Verifies or blocks a sender; the comment, when given, is shown to the account as `admin_comment`. */
export async function moderateViberSender(deps: Deps, id: number, decision: 'verify' | 'block', comment?: string): Promise<ViberSender> {
  const status = decision === 'verify' ? VIBER_SENDER_STATUS.verified : VIBER_SENDER_STATUS.blocked
  const adminComment = comment?.trim()
  if (adminComment !== undefined && /[\u0000\u007f]/.test(adminComment)) throw new AppError('invalid', 'The comment must not hold control characters')
  const sender = await sendersRepo.setViberSenderStatus(deps.db, { id, status, adminComment, now: deps.now() })
  if (!sender) throw new AppError('not_found', `Viber sender ${id} not found`)
  return sender
}

export async function listViberSenders(deps: Deps, accountId?: number): Promise<ViberSender[]> {
  return sendersRepo.listViberSenders(deps.db, accountId)
}

/** The account's sender; another account's or an unknown id is not found (the same answer, so ids reveal nothing). */
export async function getViberSender(deps: Deps, accountId: number, id: number): Promise<ViberSender> {
  const sender = await sendersRepo.findViberSender(deps.db, accountId, id)
  if (!sender) throw new AppError('not_found', 'Sender not found')
  return sender
}

/** The sender a campaign names by `sender_id`, if it is the account's and verified; otherwise a 4xx saying why. */
export async function requireActiveViberSender(deps: Deps, accountId: number, senderId: number): Promise<ViberSender> {
  const sender = await sendersRepo.findViberSender(deps.db, accountId, senderId)
  if (sender?.status === VIBER_SENDER_STATUS.verified) return sender
  const why = !sender ? 'is not a sender name of this account' : sender.status === VIBER_SENDER_STATUS.moderation ? 'is still in moderation' : 'is blocked'
  throw new AppError('invalid', `Argument sender_id: sender name ${senderId} ${why}`)
}
