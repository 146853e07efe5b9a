// Viber campaigns (API.md 4.10): 50 a page, newest first (GET /viber/task), a new one (viber-campaign-form.tsx),
// and one campaign's statistics (GET /viber/task/{id}) with its recipients, 100 a page (…/recipients).
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { Fact } from '../parts/fact.js'
import { Messages, Pager, usePageState } from '../parts/page-state.js'
import { NewViberCampaign } from './viber-campaign-form.js'

const PAGE_SIZE = 50
const RECIPIENT_PAGE = 100

interface Listed {
  id: number
  name: string
  message: string
  sender_name: string
  status: string
  send_date: string | null
  created: string | null
  button_text: string | null
  button_link: string | null
  image_link: string | null
}

interface Statistics extends Listed {
  message_live_time: number
  resend_sms: boolean
  statistic: { sent: number; delivered: number; read: number; redirected: number; undelivered: number; errors: number }
  resend_sms_statistic: { total: number; delivered: number } | null
}

interface Recipient {
  phone: number
  status: string | null
  send_date: string | null
  price: number
  currency: string
}

export function ViberCampaigns() {
  const [offset, setOffset] = useState(0)
  const [open, setOpen] = useState<number | undefined>()
  const state = usePageState(() => api<Listed[]>('GET', `/viber/task?limit=${PAGE_SIZE}&offset=${offset}`), [offset])

  if (open !== undefined) return <CampaignDetails id={open} onBack={() => setOpen(undefined)} />
  return (
    <>
      <h2>Campaigns</h2>
      <NewViberCampaign onCreated={(id) => state.act(async () => {}, `Campaign ${id} created.`)} />
      <Messages state={state} />
      {state.data === undefined ? (
        !state.error && <p>Loading campaigns…</p>
      ) : state.data.length === 0 && offset === 0 ? (
        <p>No Viber campaigns yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Viber campaigns, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Campaign</th>
                <th scope="col">Sender</th>
                <th scope="col">Status</th>
                <th scope="col">Sends at (UTC)</th>
                <th scope="col">Created (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {state.data.map((c) => (
                <tr key={c.id}>
                  <th scope="row">
                    <button type="button" class="link" aria-label={`${c.name}: statistics and recipients`} onClick={() => setOpen(c.id)}>
                      {c.name}
                    </button>
                  </th>
                  <td data-label="Sender">{c.sender_name}</td>
                  <td data-label="Status">{c.status}</td>
                  <td data-label="Sends at">{c.send_date}</td>
                  <td data-label="Created">{c.created}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} size={PAGE_SIZE} shown={state.data?.length ?? 0} onOffset={setOffset} />
    </>
  )
}

const COUNTS: [keyof Statistics['statistic'], string][] = [
  ['sent', 'Sent'],
  ['delivered', 'Delivered'],
  ['read', 'Read'],
  ['redirected', 'Button followed'],
  ['undelivered', 'Not delivered'],
  ['errors', 'Errors'],
]

function CampaignDetails({ id, onBack }: { id: number; onBack: () => void }) {
  const [offset, setOffset] = useState(0)
  const stats = usePageState(() => api<Statistics>('GET', `/viber/task/${id}`))
  const recipients = usePageState(async () => (await api<{ recipients: Recipient[] }>('GET', `/viber/task/${id}/recipients?limit=${RECIPIENT_PAGE}&offset=${offset}`)).recipients, [offset])
  const s = stats.data
  return (
    <>
      <button type="button" class="secondary" onClick={onBack}>
        Back to the campaigns
      </button>
      <h2>{s ? s.name : `Campaign ${id}`}</h2>
      <Messages state={stats} />
      {s && (
        <dl class="facts">
          <Fact term="Status">{s.status}</Fact>
          <Fact term="Sender">{s.sender_name}</Fact>
          <Fact term="Sends at (UTC)">{s.send_date}</Fact>
          <Fact term="Message">{s.message}</Fact>
          {s.button_text && (
            <Fact term="Button">
              {s.button_text} → {s.button_link}
            </Fact>
          )}
          {s.image_link && (
            <Fact term="Image">{s.image_link}</Fact>
          )}
          <Fact term="SMS where Viber does not deliver">{s.resend_sms ? `Yes (${s.resend_sms_statistic?.total ?? 0} sent so far)` : 'No'}</Fact>
          {COUNTS.map(([key, label]) => (
            <Fact key={key} term={label}>
              {s.statistic[key].toLocaleString('en')}
            </Fact>
          ))}
        </dl>
      )}
      <Messages state={recipients} />
      {recipients.data && (
        <div class="table-wrap">
          <table>
            <caption>Recipients</caption>
            <thead>
              <tr>
                <th scope="col">Number</th>
                <th scope="col">Status</th>
                <th scope="col">Sent (UTC)</th>
                <th scope="col" class="num">
                  Price
                </th>
              </tr>
            </thead>
            <tbody>
              {recipients.data.map((r) => (
                <tr key={r.phone}>
                  <th scope="row">{r.phone}</th>
                  <td data-label="Status">{r.status ?? 'waiting'}</td>
                  <td data-label="Sent">{r.send_date ?? ''}</td>
                  <td class="num" data-label="Price">
                    {r.price} {r.currency}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} size={RECIPIENT_PAGE} shown={recipients.data?.length ?? 0} onOffset={setOffset} />
    </>
  )
}
