// The console's dashboard figures (GET /statistics/email/daily, a Tidings extension): an account's emails per UTC
// day over the last `days` days, today's included, with every day present (zeros where nothing happened), the
// totals of today and of the whole period, and how many emails wait in the queue. A message counts on the day a
// mail server answered it (storage/repos/email-days.ts), so its later open or bounce counts on that day too: the
// rates of a day (opened ÷ delivered) compare the same messages.
import { DAY_MS, emailDays, queuedEmails, type EmailDay } from '../../storage/repos/email-days.js'
import type { Deps } from '../types.js'

/** The longest period asked: 90 days of an account's answered messages, one range of an index each. */
export const MAX_DAYS = 90

export type EmailCounts = Omit<EmailDay, 'day'>

export interface DailyEmailStatistics {
  /** One per day, oldest first; `date` is YYYY-MM-DD (UTC). */
  days: (EmailCounts & { date: string })[]
  today: EmailCounts
  period: EmailCounts
  /** Email messages queued or waiting for a retry. */
  queued: number
}

const ZERO: EmailCounts = { sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, complained: 0 }

export async function dailyEmailStatistics(deps: Deps, accountId: number, days: number): Promise<DailyEmailStatistics> {
  const today = Math.floor(deps.now() / DAY_MS)
  const firstDay = today - (days - 1)
  const [found, queued] = await Promise.all([emailDays(deps.db, accountId, firstDay, today), queuedEmails(deps.db, accountId)])
  const byDay = new Map(found.map(({ day, ...counts }) => [day, counts]))
  const series = Array.from({ length: days }, (_, i) => ({ date: new Date((firstDay + i) * DAY_MS).toISOString().slice(0, 10), ...(byDay.get(firstDay + i) ?? ZERO) }))
  return { days: series, today: byDay.get(today) ?? ZERO, period: sum(series), queued }
}

function sum(days: readonly EmailCounts[]): EmailCounts {
  const total = { ...ZERO }
  for (const day of days) for (const key of Object.keys(total) as (keyof EmailCounts)[]) total[key] += day[key]
  return total
}
