// The dashboard: the account's emails today and over the last 30 days with their rates, the queue and the balance,
// and a chart of each day. Figures from the Tidings extension GET /statistics/email/daily (each email counted on the
// UTC day a mail server answered it, what became of it since on that same day) and GET /balance (API.md 4.8).
import { useMemo } from 'preact/hooks'
import { api } from '../api.js'
import { Messages, usePageState } from '../parts/page-state.js'
import { SERIES_COLORS, TimeChart, type ChartSeries } from '../parts/time-chart.js'
import { money } from './balance.js'

const DAYS = 30

interface Counts {
  sent: number
  delivered: number
  opened: number
  clicked: number
  bounced: number
  complained: number
}

interface Daily {
  days: (Counts & { date: string })[]
  today: Counts
  period: Counts
  queued: number
}

interface Balance {
  currency: string
  balance_currency: number
}

/** A share as a percentage with one decimal, or a dash when there is nothing to divide by. */
const rate = (part: number, whole: number) => (whole === 0 ? '—' : (part / whole).toLocaleString('en', { style: 'percent', maximumFractionDigits: 1 }))
const count = (n: number) => n.toLocaleString('en')

/** What the chart draws: the emails of each day and what became of them. */
const CHARTED: (keyof Counts)[] = ['sent', 'delivered', 'opened', 'clicked']
const LABELS: Record<keyof Counts, string> = { sent: 'Sent', delivered: 'Delivered', opened: 'Opened', clicked: 'Clicked', bounced: 'Bounced', complained: 'Complaints' }

export function DashboardPage() {
  const state = usePageState(() => Promise.all([api<Daily>('GET', `/statistics/email/daily?days=${DAYS}`), api<Balance>('GET', '/balance')]))
  const [daily, balance] = state.data ?? []
  // Built once per answer: the chart draws again whenever its times or series change.
  const chart = useMemo(() => {
    if (!daily) return undefined
    const times = daily.days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000)
    const series: ChartSeries[] = CHARTED.map((key, i) => ({ label: LABELS[key], values: daily.days.map((d) => d[key]), color: SERIES_COLORS[i]! }))
    return { times, series }
  }, [daily])

  const period = daily?.period
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Dashboard</h1>
      <Messages state={state} />
      {!daily || !balance || !period || !chart ? (
        !state.error && <p>Loading the figures…</p>
      ) : (
        <>
          <dl class="facts">
            <div>
              <dt>Emails sent today</dt>
              <dd>{count(daily.today.sent)}</dd>
            </div>
            <div>
              <dt>Emails sent in the last {DAYS} days</dt>
              <dd>{count(period.sent)}</dd>
            </div>
            <div>
              <dt>Waiting in the queue</dt>
              <dd>{count(daily.queued)}</dd>
            </div>
            <div>
              <dt>Balance</dt>
              <dd>{money(balance.balance_currency, balance.currency)}</dd>
            </div>
          </dl>
          <h2>Rates over the last {DAYS} days</h2>
          <dl class="facts">
            <div>
              <dt>Delivery rate</dt>
              <dd>{rate(period.delivered, period.sent)}</dd>
            </div>
            <div>
              <dt>Open rate</dt>
              <dd>{rate(period.opened, period.delivered)}</dd>
            </div>
            <div>
              <dt>Click rate</dt>
              <dd>{rate(period.clicked, period.delivered)}</dd>
            </div>
            <div>
              <dt>Bounce rate</dt>
              <dd>{rate(period.bounced, period.sent)}</dd>
            </div>
            <div>
              <dt>Complaint rate</dt>
              <dd>{rate(period.complained, period.delivered)}</dd>
            </div>
          </dl>
          <p class="dashboard-note">
            Delivery and bounce rates are shares of the emails sent; open, click and complaint rates are shares of those delivered. Each email counts on the day (UTC) a mail
            server answered it, and so do its later opens, clicks and bounces.
          </p>
          <TimeChart title={`Emails per day, last ${DAYS} days`} times={chart.times} series={chart.series} />
        </>
      )}
    </section>
  )
}
