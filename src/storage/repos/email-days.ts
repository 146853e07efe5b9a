// An account's emails per UTC day, for the console's dashboard (GET /statistics/email/daily), from
// email_day_counts, which triggers on `messages` keep (migration 0020): a few rows per day read, however many
// messages. The queue depth comes from campaign_counts (0014): a few rows per campaign of the account, where
// counting the queued messages themselves would read an index entry each.
import type { Kysely } from 'kysely'
import type { Database } from '../tables.js'
import { UNFINISHED } from './messages.js'

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

/** The account's days from `fromDay` to `toDay` (included) that have counts, ascending. */
export async function emailDays(db: Kysely<Database>, accountId: number, fromDay: number, toDay: number): Promise<EmailDay[]> {
  const rows = await db
    .selectFrom('email_day_counts')
    .select((eb) => [
      'day',
      eb.fn.sum<number | string>('sent').as('sent'),
      eb.fn.sum<number | string>('delivered').as('delivered'),
      eb.fn.sum<number | string>('opened').as('opened'),
      eb.fn.sum<number | string>('clicked').as('clicked'),
      eb.fn.sum<number | string>('bounced').as('bounced'),
      eb.fn.sum<number | string>('complained').as('complained'),
    ])
    .where('account_id', '=', accountId)
    .where('day', '>=', fromDay)
    .where('day', '<=', toDay)
    .groupBy('day')
    .orderBy('day')
    .execute()
  return rows.map((r) => ({ day: Number(r.day), sent: Number(r.sent), delivered: Number(r.delivered), opened: Number(r.opened), clicked: Number(r.clicked), bounced: Number(r.bounced), complained: Number(r.complained) }))
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
