// An account's emails per UTC day, for the console's dashboard (GET /statistics/email/daily): each message counts on
// the day a mail server answered it (migration 0020: sent_at, or updated_at for an outright refusal), with what
// became of it since (delivered, opened, clicked, bounced, complained). Read from 0020's two covering partial
// indexes: one range of the account's entries each, never the table. The queue depth is read from campaign_counts
// (0014): a few rows per campaign of the account, where counting queued messages would read one index entry each.
import { sql, type Kysely } from 'kysely'
import type { Database } from '../tables.js'
import { REFUSED, TAKEN } from '../migrations/0020_email_days.js'
import { MESSAGE_STATUS, UNFINISHED } from './messages.js'

export const DAY_MS = 86_400_000

export interface EmailDay {
  /** Days since 1970-01-01 (UTC). */
  day: number
  /** Answered by a mail server: delivered + bounced (+ the rare "sent, no news yet"). */
  sent: number
  delivered: number
  opened: number
  clicked: number
  bounced: number
  complained: number
}

/** Reached the mailbox: delivered, then maybe opened, clicked, unsubscribed or reported as spam. */
const DELIVERED = [MESSAGE_STATUS.delivered, MESSAGE_STATUS.opened, MESSAGE_STATUS.redirected, MESSAGE_STATUS.unsubscribed, MESSAGE_STATUS.markedAsSpam]
/** Statuses that say nothing of a bounce: the rest of an answered message's statuses are failures (API.md 3.3). */
const NOT_BOUNCED = [MESSAGE_STATUS.sent, ...DELIVERED]

const list = (values: readonly number[]) => sql.join(values.map((v) => sql.lit(v)))

/**
 * The account's days from `fromDay` to `toDay` (included) that have any email, ascending. The WHERE clauses repeat
 * 0020's index predicates word for word: SQLite uses a partial index only for a query whose terms match its own.
 */
export async function emailDays(db: Kysely<Database>, accountId: number, fromDay: number, toDay: number): Promise<EmailDay[]> {
  const from = fromDay * DAY_MS
  const until = (toDay + 1) * DAY_MS
  const counted = (day: 'sent_at' | 'updated_at') => sql`
    select ${sql.ref(day)} / ${sql.lit(DAY_MS)} as day, count(*) as sent,
      sum(case when status in (${list(DELIVERED)}) then 1 else 0 end) as delivered,
      count(opened_at) as opened, count(clicked_at) as clicked,
      sum(case when status in (${list(NOT_BOUNCED)}) then 0 else 1 end) as bounced,
      sum(case when status = ${sql.lit(MESSAGE_STATUS.markedAsSpam)} then 1 else 0 end) as complained
    from messages
    where account_id = ${accountId} and ${day === 'sent_at' ? TAKEN : REFUSED} and ${sql.ref(day)} >= ${from} and ${sql.ref(day)} < ${until}
    group by 1`
  const { rows } = await sql<Record<keyof EmailDay, number | string>>`${counted('sent_at')} union all ${counted('updated_at')}`.execute(db)
  const byDay = new Map<number, EmailDay>()
  for (const row of rows) {
    const day = Number(row.day)
    const into = byDay.get(day) ?? { day, sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, complained: 0 }
    for (const key of ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained'] as const) into[key] += Number(row[key])
    byDay.set(day, into)
  }
  return [...byDay.values()].sort((a, b) => a.day - b.day)
}

/** The account's email messages waiting to be sent (queued or waiting for a retry), from campaign_counts. */
export async function queuedEmails(db: Kysely<Database>, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('campaign_counts')
    .innerJoin('campaigns', 'campaigns.id', 'campaign_counts.campaign_id')
    .select((eb) => eb.fn.sum<number | string | null>('campaign_counts.messages').as('queued'))
    .where('campaigns.account_id', '=', accountId)
    .where('campaign_counts.channel', '=', 'email')
    .where('campaign_counts.status', 'in', [...UNFINISHED])
    .executeTakeFirstOrThrow()
  return Number(row.queued ?? 0)
}
