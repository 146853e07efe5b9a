// Sender addresses (API.md 2.5, 4.4): added inactive, activated with a code emailed to the address itself, so an
// account can send only from addresses whose mailbox it controls. Double opt-in needs an active sender.
import { randomInt } from 'node:crypto'
import { escapeHtml } from '../../lib/validator-parts.js'
import * as sendersRepo from '../../storage/repos/senders.js'
import { OUTBOX_KIND, countAccountEmailsSince } from '../../storage/repos/outbox.js'
import { isUniqueViolation } from '../../storage/db.js'
import { normalizeEmail } from '../../lib/email-address.js'
import { macMatchesAny, macOf } from '../../tracking/signed-token.js'
import { toWireDate } from '../../lib/wire-date.js'
import { AppError } from '../errors.js'
import { HIDDEN, queueServiceEmail, systemSender } from './outbox.js'
import { signingKey, verifyingKeys } from '../../tracking/signing-key.js'
import type { Deps } from '../types.js'

export type SenderStatus = sendersRepo.SenderStatus

export interface Sender {
  email: string
  name: string
  status: SenderStatus
}

const HOUR = 3_600_000
const ACTIVATION = {
  /**
   * 8 digits, never starting with 0 (so a code sent as a JSON number survives). With at most 5 guesses an hour,
   * guessing one takes about 9e7 / 5 / 8766 ≈ 2,000 years of tries on average.
   */
  min: 10_000_000,
  max: 100_000_000,
  validMs: 24 * HOUR,
  codesPerWindow: 5,
  /** Codes an account may have emailed in a window over all its senders: the API must not become a mailer. */
  codesPerAccountWindow: 20,
  windowMs: HOUR,
  maxAttempts: 5,
  lockMs: HOUR,
} as const

const CODE_PURPOSE = 'sender-code'

const senderNotFound = () => new AppError('not_found', 'Sender not found')
const tooManyCodes = () => new AppError('invalid', 'Too many activation codes requested; try again later')

function addressOf(raw: string): string {
  const email = normalizeEmail(raw)
  if (!email) throw new AppError('invalid', 'Argument email is invalid')
  return email
}

async function getSender(deps: Deps, accountId: number, raw: string): Promise<sendersRepo.SenderRow> {
  const sender = await sendersRepo.findSender(deps.db, accountId, addressOf(raw))
  if (!sender) throw senderNotFound()
  return sender
}

export async function listSenders(deps: Deps, accountId: number): Promise<Sender[]> {
  const rows = await sendersRepo.listSenders(deps.db, accountId)
  return rows.map((s) => ({ email: s.email, name: s.name, status: s.status }))
}

/** Adds an inactive sender; an address the account already has is refused, whatever its name or status. */
export async function addSender(deps: Deps, accountId: number, sender: { email: string; name: string }): Promise<void> {
  try {
    await sendersRepo.createSender(deps.db, { accountId, email: addressOf(sender.email), name: sender.name, now: deps.now() })
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError('conflict', 'Sender already exists', { cause: err })
    throw err
  }
}

export async function deleteSender(deps: Deps, accountId: number, email: string): Promise<void> {
  if (!(await sendersRepo.deleteSender(deps.db, accountId, addressOf(email)))) throw senderNotFound()
}

/** Emails a new activation code to the sender's address (replacing any earlier one); answers the address. */
export async function requestActivationCode(deps: Deps, accountId: number, email: string): Promise<string> {
  const sender = await getSender(deps, accountId, email)
  if (sender.status === sendersRepo.SENDER_STATUS.active) throw new AppError('invalid', 'Sender is already active')
  const now = deps.now()
  const sentByAccount = await countAccountEmailsSince(deps.db, { accountId, kind: OUTBOX_KIND.senderCode, since: now - ACTIVATION.windowMs })
  if (sentByAccount >= ACTIVATION.codesPerAccountWindow) throw tooManyCodes()
  const code = String(randomInt(ACTIVATION.min, ACTIVATION.max))
  const codeHash = macOf(await signingKey(deps), CODE_PURPOSE, `${sender.id}:${code}`)
  await deps.db.transaction().execute(async (trx) => {
    const stored = await sendersRepo.storeCodeWithinLimit(trx, {
      accountId,
      id: sender.id,
      codeHash,
      expiresAt: now + ACTIVATION.validMs,
      now,
      windowMs: ACTIVATION.windowMs,
      maxPerWindow: ACTIVATION.codesPerWindow,
    })
    if (!stored) throw tooManyCodes()
    const email = (shownCode: string) => senderCodeEmail({ email: sender.email, name: sender.name, code: shownCode, validHours: ACTIVATION.validMs / HOUR })
    await queueServiceEmail(trx, { accountId, kind: OUTBOX_KIND.senderCode, from: systemSender(deps.config), to: sender.email, ...email(code), shown: email(HIDDEN) }, now)
  })
  return sender.email
}

/** Activates the sender with the code from its latest activation email; answers the address. */
export async function activateSender(deps: Deps, accountId: number, email: string, code: string): Promise<string> {
  const sender = await getSender(deps, accountId, email)
  if (sender.status === sendersRepo.SENDER_STATUS.active) throw new AppError('invalid', 'Sender is already active')
  const now = deps.now()
  if (sender.lockedUntil !== null && sender.lockedUntil > now) throw lockedError(sender.lockedUntil)
  if (sender.codeHash === null) throw new AppError('invalid', 'No activation code was requested for this sender')
  if (sender.codeExpiresAt === null || sender.codeExpiresAt <= now) {
    throw new AppError('invalid', 'Activation code has expired; request a new one')
  }
  const attempt = await sendersRepo.claimCodeAttempt(deps.db, { accountId, id: sender.id, now, maxAttempts: ACTIVATION.maxAttempts, lockMs: ACTIVATION.lockMs })
  if (!attempt) throw lockedError((await sendersRepo.findSender(deps.db, accountId, sender.email))?.lockedUntil ?? now)
  // A code emailed before the key was rotated was hashed with the older key.
  if (attempt.codeHash === null || !macMatchesAny(await verifyingKeys(deps), CODE_PURPOSE, `${sender.id}:${code}`, attempt.codeHash)) {
    const left = ACTIVATION.maxAttempts - attempt.attempts
    throw new AppError(
      'invalid',
      attempt.lockedUntil === null
        ? `Wrong activation code; ${left} attempt${left === 1 ? '' : 's'} left before the sender is locked for an hour`
        : `Wrong activation code; too many wrong codes: sender is locked until ${toWireDate(attempt.lockedUntil)} UTC`,
    )
  }
  await sendersRepo.markSenderActive(deps.db, { accountId, id: sender.id, now })
  return sender.email
}

/** The activation email: the code in the subject too, so it can be read from a notification. */
function senderCodeEmail(sender: { email: string; name: string; code: string; validHours: number }) {
  const intro = `Your activation code for sending as ${sender.name} <${sender.email}> is:`
  const outro = `It is valid for ${sender.validHours} hours. If you did not ask for it, ignore this email: without the code the address cannot be used as a sender.`
  return {
    subject: `Sender activation code: ${sender.code}`,
    text: `${intro}\n\n${sender.code}\n\n${outro}\n`,
    html: `<p>${escapeHtml(intro)}</p>\n<p style="font-size:24px;font-weight:bold;letter-spacing:2px">${sender.code}</p>\n<p>${escapeHtml(outro)}</p>\n`,
  }
}

function lockedError(lockedUntil: number): AppError {
  return new AppError('invalid', `Too many wrong activation codes; sender is locked until ${toWireDate(lockedUntil)} UTC`)
}

/**
 * The account's active sender with this address, for double opt-in; SendPulse's error 1003 otherwise. It reads
 * through `deps.db`: call it before opening a transaction (on SQLite a transaction holds the one connection).
 */
export async function requireActiveSender(deps: Deps, accountId: number, email: string): Promise<{ email: string; name: string }> {
  const address = normalizeEmail(email)
  const sender = address === undefined ? undefined : await sendersRepo.findSender(deps.db, accountId, address)
  if (!sender || sender.status !== sendersRepo.SENDER_STATUS.active) {
    throw new AppError('invalid', 'Sender not found', { publishedCode: 1003 })
  }
  return { email: sender.email, name: sender.name }
}
