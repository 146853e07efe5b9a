// Service emails (double opt-in confirmations, sender activation codes) are queued in the outbox, in the
// caller's transaction when it has one; the email channel sends them. Until it is configured they stay there.
// Each carries a secret that proves control of its recipient's address, so the account that caused it is shown
// only a copy with that secret replaced (else any account could activate ceo@bigbank.com as its sender, or
// confirm a subscription for someone else); the operator reads them in full (`tidings outbox`).
import type { Kysely } from 'kysely'
import * as outboxRepo from '../../storage/repos/outbox.js'
import { UNFINISHED, type MessageRow } from '../../storage/repos/messages.js'
import type { Database } from '../../storage/tables.js'
import type { Config } from '../../config/schema.js'
import type { Page } from '../types.js'
import { AppError } from '../errors.js'

export type ServiceEmail = outboxRepo.NewOutboxEmail
export type OutboxEmail = outboxRepo.OutboxEmail
/** An email as the outbox lists it: a service email, or a campaign message (kind `campaign`). */
export type ListedEmail = Omit<OutboxEmail, 'kind' | 'shown'> & { kind: OutboxEmail['kind'] | 'campaign' | 'sms' | 'viber' }

/** The outbox's words for a campaign message's state: queued, sent, captured or failed. */
function outboxStatusOf(m: { status: number; sentAt: number | null; captured: boolean }): string {
  if (UNFINISHED.includes(m.status)) return 'queued'
  if (m.sentAt === null) return 'failed'
  return m.captured ? 'captured' : 'sent'
}

/** A campaign's message as the outbox lists it, with what its channel rendered. */
export function campaignOutboxItem(
  m: MessageRow & { captured: boolean },
  campaign: { accountId: number; createdAt: number },
  content: { kind: ListedEmail['kind']; from: Mailbox; subject?: string; html?: string; text: string },
): ListedEmail {
  return {
    id: m.id,
    accountId: campaign.accountId,
    kind: content.kind,
    from: content.from,
    to: m.address,
    subject: content.subject ?? '',
    html: content.html ?? '',
    text: content.text,
    status: outboxStatusOf(m),
    attempts: m.attempts,
    providerId: null,
    lastError: m.lastError,
    createdAt: campaign.createdAt,
    sentAt: m.sentAt,
  }
}
export type Mailbox = outboxRepo.Mailbox

/** What stands in an email's shown copy for the secret it carries. */
export const HIDDEN = '[hidden]'

/**
 * Rows per INSERT: 14 bound values each, so 500 rows stay far below SQLite's 32,766 and PostgreSQL's 65,535
 * parameters per statement.
 */
const ROWS_PER_INSERT = 500

/** Queues one email; `db` may be a transaction. */
export async function queueServiceEmail(db: Kysely<Database>, email: ServiceEmail, now: number): Promise<void> {
  await outboxRepo.queueEmails(db, [email], now)
}

/** Queues many emails with a few multi-row inserts; `db` may be a transaction. */
export async function queueServiceEmails(db: Kysely<Database>, emails: readonly ServiceEmail[], now: number): Promise<void> {
  for (let start = 0; start < emails.length; start += ROWS_PER_INSERT) {
    await outboxRepo.queueEmails(db, emails.slice(start, start + ROWS_PER_INSERT), now)
  }
}

/** The account's outbox as the account may see it, oldest first: every email's shown copy, never its secret. */
export async function listOutbox(db: Kysely<Database>, accountId: number, page: Page): Promise<ListedEmail[]> {
  const emails = await outboxRepo.listAccountEmails(db, accountId, page)
  // A row from before the shown copy existed: its secret cannot be told from the rest, so nothing is shown.
  return emails.map(({ shown, ...email }) => ({ ...email, ...(shown ?? { subject: HIDDEN, html: HIDDEN, text: HIDDEN }) }))
}

/** The HTML the account is shown of one of its service emails (never its secret); not found when the id is not its. */
export async function shownHtmlOf(db: Kysely<Database>, accountId: number, id: number): Promise<string> {
  const email = await outboxRepo.findAccountEmail(db, accountId, id)
  if (!email) throw new AppError('not_found', 'Email not found')
  return email.shown?.html ?? HIDDEN
}

/** The account's outbox in full, secrets included, oldest first: for the operator (`tidings outbox`) only. */
export async function listOutboxInFull(db: Kysely<Database>, accountId: number, page: Page): Promise<ListedEmail[]> {
  const emails = await outboxRepo.listAccountEmails(db, accountId, page)
  return emails.map(({ shown: _shown, ...email }) => email)
}

/** The From of emails the service sends in its own name (`systemFrom`: `Name <address>` or a bare address). */
export function systemSender(config: Pick<Config, 'systemFrom'>): Mailbox {
  const match = /^\s*"?([^"<]*?)"?\s*<([^<>]+)>\s*$/.exec(config.systemFrom)
  return match ? { email: match[2]!.trim(), name: match[1]!.trim() } : { email: config.systemFrom.trim(), name: '' }
}
