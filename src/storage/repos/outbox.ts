// The outbox of service emails (double opt-in confirmations, sender activation codes) waiting for the email channel.
import type { Kysely, Selectable } from 'kysely'
import type { Database, OutboxTable } from '../tables.js'
import type { Page } from '../../services/types.js'

export const OUTBOX_KIND = { confirmation: 'confirmation', senderCode: 'sender_code' } as const
export type OutboxKind = (typeof OUTBOX_KIND)[keyof typeof OUTBOX_KIND]

export const OUTBOX_STATUS = { queued: 'queued' } as const

export interface Mailbox {
  email: string
  name: string
}

export interface NewOutboxEmail {
  accountId: number
  kind: OutboxKind
  from: Mailbox
  to: string
  subject: string
  html: string
  text: string
}

export interface OutboxEmail extends NewOutboxEmail {
  id: number
  status: string
  createdAt: number
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
    status: row.status,
    createdAt: Number(row.created_at),
  }
}
