// SMS sender IDs (API.md 2.11, 3.4): the operator registers one for an account and moderates it
// (`tidings sms senders …`); a campaign may only use one that is active for its account.
import * as sendersRepo from '../../storage/repos/sms-senders.js'
import { AppError } from '../errors.js'
import { getAccount } from '../accounts/accounts.js'
import type { Deps } from '../types.js'

const { SMS_SENDER_STATUS } = sendersRepo
export { SMS_SENDER_STATUS }
export type SmsSender = sendersRepo.SmsSenderRow

/** Up to 11 letters and digits (an alphanumeric ID, at least one letter), or a number of up to 15 digits (API.md 8). */
const SENDER_ID = /^(?=.*[A-Za-z])[A-Za-z0-9]{1,11}$|^\+?\d{1,15}$/

export function isValidSenderId(name: string): boolean {
  return SENDER_ID.test(name)
}

/** API.md 3.4 */
const STATUS_EXPLAIN: Record<number, string> = { 0: 'In moderation', 1: 'Active', 2: 'Rejected' }

export function senderStatusExplain(status: number): string {
  return STATUS_EXPLAIN[status] ?? 'Unknown'
}

export async function registerSmsSender(deps: Deps, accountId: number, name: string): Promise<number> {
  if ((await getAccount(deps, accountId)).deletedAt !== null) throw new AppError('not_found', `account ${accountId} not found`)
  if (!isValidSenderId(name)) throw new AppError('invalid', `Sender "${name}" is not valid: up to 11 letters and digits, or a number`)
  const id = await sendersRepo.insertSmsSender(deps.db, { accountId, name, now: deps.now() })
  if (id === undefined) throw new AppError('conflict', `The account already has the sender "${name}"`)
  return id
}

export async function moderateSmsSender(deps: Deps, id: number, decision: 'approve' | 'reject'): Promise<void> {
  const status = decision === 'approve' ? SMS_SENDER_STATUS.active : SMS_SENDER_STATUS.rejected
  if (!(await sendersRepo.setSmsSenderStatus(deps.db, id, status, deps.now()))) throw new AppError('not_found', `SMS sender ${id} not found`)
}

export async function listSmsSenders(deps: Deps, accountId?: number): Promise<SmsSender[]> {
  return sendersRepo.listSmsSenders(deps.db, accountId)
}

/** The sender a campaign names, if it is active for the account; otherwise a 4xx naming it. */
export async function requireActiveSmsSender(deps: Deps, accountId: number, name: string): Promise<SmsSender> {
  const sender = await sendersRepo.findSmsSender(deps.db, accountId, name)
  if (sender?.status === SMS_SENDER_STATUS.active) return sender
  const why = !sender ? 'is not registered for this account' : sender.status === SMS_SENDER_STATUS.moderation ? 'is still in moderation' : 'was rejected'
  throw new AppError('invalid', `Sender "${name}" ${why}`)
}
