// The outbox of service emails (double opt-in confirmations, sender activation codes) waiting for the email channel.
import type { Kysely, Selectable } from 'kysely'
import type { Database, OutboxTable } from '../tables.js'
import { leaseFree, skippingLocked } from './leases.js'
import type { Page } from '../../services/types.js'

export const OUTBOX_KIND = { confirmation: 'confirmation', senderCode: 'sender_code' } as const
export type OutboxKind = (typeof OUTBOX_KIND)[keyof typeof OUTBOX_KIND]

export const OUTBOX_STATUS = { queued: 'queued', sent: 'sent', captured: 'captured', failed: 'failed' } as const

export interface Mailbox {
  email: string
  name: string
}

export interface EmailContent {
  subject: string
  html: string
  text: string
}

export interface NewOutboxEmail extends EmailContent {
  accountId: number
  kind: OutboxKind
  from: Mailbox
  to: string
  /** What the account is shown of it: the same email with any secret it carries replaced. */
  shown: EmailContent
}

export interface OutboxEmail extends Omit<NewOutboxEmail, 'shown'> {
  /** Null on rows queued before migration 0011. */
  shown: EmailContent | null
  id: number
  status: string
  attempts: number
  providerId: string | null
  lastError: string | null
  createdAt: number
  sentAt: number | null
}

/** Inserts the emails as queued in one statement (the caller keeps the batch within the bound-parameter limits). */
export async function queueEmails(db: Kysely<Database>, emails: readonly NewOutboxEmail[], now: number): Promise<void> {
  if (emails.length === 0) return
  await db
    .insertInto('outbox')
    .values(emails.map((e) => ({
      account_id: e.accountId,
      kind: e.kind,
      from_email: e.from.email,
      from_name: e.from.name,
      to_email: e.to,
      subject: e.subject,
      html: e.html,
      text: e.text,
      shown_subject: e.shown.subject,
      shown_html: e.shown.html,
      shown_text: e.shown.text,
      status: OUTBOX_STATUS.queued,
      created_at: now,
      updated_at: now,
    })))
    .execute()
}

/** The account's outbox, oldest first. */
export async function listAccountEmails(db: Kysely<Database>, accountId: number, page: Page): Promise<OutboxEmail[]> {
  const rows = await db
    .selectFrom('outbox')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute()
  return rows.map(toOutboxEmail)
}

/** One email of the account's outbox (the console's message view), or none when the id is not the account's. */
export async function findAccountEmail(db: Kysely<Database>, accountId: number, id: number): Promise<OutboxEmail | undefined> {
  const row = await db.selectFrom('outbox').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()
  return row && toOutboxEmail(row)
}

/** How many emails of `kind` the account queued since `since`: the basis of per-account sending limits. */
export async function countAccountEmailsSince(db: Kysely<Database>, filter: { accountId: number; kind: OutboxKind; since: number }): Promise<number> {
  const row = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', filter.accountId)
    .where('kind', '=', filter.kind)
    .where('created_at', '>=', filter.since)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/**
 * Claims queued emails that are due: each is leased to the caller until `now + leaseMs`, so a sender that dies
 * leaves them to the next claim. PostgreSQL skips rows another sender holds; SQLite has one writer.
 */
export async function claimDueEmails(db: Kysely<Database>, claim: { now: number; limit: number; leaseMs: number }): Promise<OutboxEmail[]> {
  const due = db
    .selectFrom('outbox')
    .select('id')
    .where('status', '=', OUTBOX_STATUS.queued)
    .where('next_attempt_at', '<=', claim.now)
    .where(leaseFree(claim.now))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(claim.limit)
  const rows = await db
    .updateTable('outbox')
    .set((eb) => ({ locked_until: claim.now + claim.leaseMs, attempts: eb('attempts', '+', 1), updated_at: claim.now }))
    .where('id', 'in', skippingLocked(due, db))
    .returningAll()
    .execute()
  return rows.map(toOutboxEmail).sort((a, b) => a.id - b.id)
}

/** Extends the lease of claimed emails to `leaseUntil` where the claim still holds them (its attempt, still queued). */
export async function renewEmailLeases(db: Kysely<Database>, emails: readonly { id: number; attempts: number }[], leaseUntil: number): Promise<void> {
  for (const attempts of new Set(emails.map((e) => e.attempts))) {
    await db
      .updateTable('outbox')
      .set({ locked_until: leaseUntil })
      .where('id', 'in', emails.filter((e) => e.attempts === attempts).map((e) => e.id))
      .where('attempts', '=', attempts)
      .where('status', '=', OUTBOX_STATUS.queued)
      .execute()
  }
}

export type DeliveryOutcome =
  | { status: 'sent' | 'captured'; providerId: string }
  | { status: 'failed'; error: string }
  | { status: 'queued'; error: string; retryAt: number }

/** Records what happened to one claimed email; only the holder of the current attempt may. */
export async function recordDelivery(db: Kysely<Database>, email: { id: number; attempts: number; now: number }, outcome: DeliveryOutcome): Promise<void> {
  const change =
    outcome.status === 'queued'
      ? { status: outcome.status, last_error: outcome.error, next_attempt_at: outcome.retryAt, locked_until: null }
      : outcome.status === 'failed'
        ? { status: outcome.status, last_error: outcome.error, locked_until: null }
        : { status: outcome.status, provider_id: outcome.providerId, sent_at: email.now, last_error: null, locked_until: null }
  await db
    .updateTable('outbox')
    .set({ ...change, updated_at: email.now })
    .where('id', '=', email.id)
    .where('attempts', '=', email.attempts)
    .where('status', '=', OUTBOX_STATUS.queued)
    .execute()
}

function toOutboxEmail(row: Selectable<OutboxTable>): OutboxEmail {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    kind: row.kind as OutboxKind,
    from: { email: row.from_email, name: row.from_name },
    to: row.to_email,
    subject: row.subject,
    html: row.html,
    text: row.text,
    shown: row.shown_subject === null || row.shown_html === null || row.shown_text === null ? null : { subject: row.shown_subject, html: row.shown_html, text: row.shown_text },
    status: row.status,
    attempts: row.attempts,
    providerId: row.provider_id,
    lastError: row.last_error,
    createdAt: Number(row.created_at),
    sentAt: row.sent_at === null ? null : Number(row.sent_at),
  }
}
