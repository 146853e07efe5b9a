// A campaign's statistics report, shown on the campaign's page (campaign-detail.tsx): its messages per
// status (GET /campaigns/{id}, statistics.general), first opens and clicks per UTC hour or day (the Tidings extension
// GET /campaigns/{id}/timeline), opens per country (…/countries), clicks per link (…/referrals), and its recipients
// with their statuses, 50 a page by keyset (the extension GET /campaigns/{id}/recipients), filtered by status, or
// one address (…/email/{email}). Status words are the API's own (explain, status_explain).
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { messageOf } from '../parts/dialog.js'
import { Messages, fieldOf, usePageState } from '../parts/page-state.js'
import { RecipientsTable } from './campaign-recipients.js'
import { CampaignTimeline } from './campaign-timeline.js'

interface StatusCount {
  code: number
  count: number
  explain: string
}

export interface CampaignStats {
  id: number
  name: string
  status: number
  send_date: string
  all_email_qty: number
  message: { subject: string; sender_email: string }
  statistics: { general: StatusCount[] }
}

interface Referral {
  link: string
  count: number
}

interface FoundRecipient {
  email: string
  sent_date: string | null
  global_status_explain: string
  detail_status_explain: string
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' })
/** "Ukraine (UA)"; the code alone when the browser does not know it. */
function countryName(code: string): string {
  try {
    const name = regionNames.of(code)
    return name && name !== code ? `${name} (${code})` : code
  } catch {
    return code
  }
}

const count = (n: number) => n.toLocaleString('en')

export function CampaignReport({ campaignId }: { campaignId: number }) {
  const base = `/campaigns/${campaignId}`
  const campaign = usePageState(() => api<CampaignStats>('GET', base))
  const countries = usePageState(() => api<Record<string, number>>('GET', `${base}/countries`))
  const links = usePageState(() => api<Referral[]>('GET', `${base}/referrals`))
  const general = campaign.data?.statistics.general ?? []

  return (
    <section aria-labelledby="report-title" class="campaign-report">
      <h2 id="report-title">{campaign.data ? `Report: ${campaign.data.name || campaign.data.message.subject}` : 'Campaign report'}</h2>
      <Messages state={campaign} />
      {campaign.data && (
        <>
          <p class="muted">
            Subject “{campaign.data.message.subject}”, from {campaign.data.message.sender_email}, {count(campaign.data.all_email_qty)} recipients, sending time {campaign.data.send_date} UTC.
          </p>
          <h3>Messages by status</h3>
          {general.length === 0 ? (
            <p>No messages yet.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="visually-hidden">Messages by status</caption>
                <thead>
                  <tr>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">
                      Messages
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {general.map((s) => (
                    <tr key={s.code}>
                      <th scope="row">{s.explain || `Status ${s.code}`}</th>
                      <td class="num" data-label="Messages">
                        {count(s.count)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}

      <CampaignTimeline campaignId={campaignId} />

      <h3>Opens by country</h3>
      <Messages state={countries} />
      {countries.data && (
        <CountTable
          caption="Opens by country"
          nameHeader="Country"
          countHeader="Opens"
          empty="No opens with a known country yet."
          rows={Object.entries(countries.data)
            .sort(([, a], [, b]) => b - a)
            .map(([code, opens]) => ({ key: code, name: countryName(code), count: opens }))}
        />
      )}

      <h3>Clicks by link</h3>
      <Messages state={links} />
      {links.data && (
        <CountTable
          caption="Clicks by link"
          nameHeader="Link"
          countHeader="Clicks"
          empty="No clicks yet."
          rows={[...links.data].sort((a, b) => b.count - a.count).map((l) => ({ key: l.link, name: l.link, count: l.count }))}
        />
      )}

      <h3>Recipients</h3>
      <FindRecipient base={base} />
      <RecipientsTable base={base} statuses={general} />
    </section>
  )
}

function CountTable({ caption, nameHeader, countHeader, empty, rows }: { caption: string; nameHeader: string; countHeader: string; empty: string; rows: { key: string; name: string; count: number }[] }) {
  if (rows.length === 0) return <p>{empty}</p>
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{nameHeader}</th>
            <th scope="col" class="num">
              {countHeader}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              <th scope="row">{row.name}</th>
              <td class="num" data-label={countHeader}>
                {count(row.count)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** What happened to one address: GET /campaigns/{id}/email/{email} (one index lookup). */
function FindRecipient({ base }: { base: string }) {
  const [found, setFound] = useState<FoundRecipient | undefined>()
  const [error, setError] = useState<string | undefined>()
  const find = async (event: Event) => {
    event.preventDefault()
    const email = fieldOf(event.currentTarget as HTMLFormElement, 'email')
    if (email === '') return
    try {
      const answer = await api<Omit<FoundRecipient, 'email'>>('GET', `${base}/email/${encodeURIComponent(email)}`)
      setFound({ ...answer, email })
      setError(undefined)
    } catch (err) {
      setFound(undefined)
      setError(messageOf(err))
    }
  }
  return (
    <>
      <form class="inline" role="search" aria-label="Recipients" onSubmit={find}>
        <div class="field">
          <label for="recipient-search">Find a recipient by email address</label>
          <input id="recipient-search" name="email" type="email" required maxLength={320} autocomplete="off" />
        </div>
        <button type="submit">Find</button>
      </form>
      <Messages state={{ status: found ? `${found.email}: ${found.global_status_explain}` : '', error }} />
      {found && (
        <dl class="facts">
          <div>
            <dt>Recipient</dt>
            <dd>{found.email}</dd>
          </div>
          <div>
            <dt>Status</dt>
            <dd>{found.global_status_explain}</dd>
          </div>
          {found.detail_status_explain !== found.global_status_explain && (
            <div>
              <dt>Detail</dt>
              <dd>{found.detail_status_explain}</dd>
            </div>
          )}
          <div>
            <dt>Sent (UTC)</dt>
            <dd>{found.sent_date ?? 'Not yet'}</dd>
          </div>
        </dl>
      )}
    </>
  )
}
