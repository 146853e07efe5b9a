// SMS campaigns (API.md 4.11): those created between two dates (GET /sms/campaigns/list), a new one (its cost
// shown first: sms-campaign-form.tsx), and one campaign's numbers with their statuses (GET /sms/campaigns/info/{id}),
// canceled while none of its messages has gone out (PUT /sms/campaigns/cancel/{id}: what it cost is paid back).
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { ConfirmDialog } from '../parts/confirm-dialog.js'
import { Fact } from '../parts/fact.js'
import { Messages, fieldOf, usePageState } from '../parts/page-state.js'
import { NewSmsCampaign } from './sms-campaign-form.js'
import { loadPhoneBooks, type PhoneBook } from './sms-numbers.js'

interface Listed {
  id: number
  address_book_id: number
  company_price: number
  company_currency: string
  send_date: string | null
  date_created: string | null
  sender_name: string
}

interface Info extends Omit<Listed, 'company_currency'> {
  currency: string
  task_phones_info: { phone: number; status: number; status_explain: string; country_code: string; money_spent: number }[]
}

const DAY_MS = 86_400_000
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)
/** The list's name when it is among the lists loaded (a deleted one keeps its number). */
const audienceOf = (bookId: number, books: PhoneBook[] | undefined) =>
  bookId === 0 ? 'Numbers typed in' : `List: ${books?.find((b) => b.id === bookId)?.name ?? bookId}`

export function SmsCampaigns() {
  // The last 30 days by default (UTC, as the API's dates are).
  const [range, setRange] = useState(() => ({ from: dayOf(Date.now() - 30 * DAY_MS), to: dayOf(Date.now()) }))
  const [open, setOpen] = useState<number | undefined>()
  const query = `dateFrom=${encodeURIComponent(`${range.from} 00:00:00`)}&dateTo=${encodeURIComponent(`${range.to} 23:59:59`)}`
  const state = usePageState(async () => (await api<{ data: Listed[] }>('GET', `/sms/campaigns/list?${query}`)).data, [query])
  const books = usePageState(loadPhoneBooks)

  const show = (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    setRange({ from: fieldOf(form, 'from'), to: fieldOf(form, 'to') })
  }

  if (open !== undefined) return <CampaignInfo id={open} books={books.data} onBack={() => setOpen(undefined)} />
  return (
    <>
      <h2>Campaigns</h2>
      <NewSmsCampaign onCreated={(id) => state.act(async () => {}, `Campaign ${id} created.`)} />
      <form class="inline" onSubmit={show}>
        <div class="field">
          <label for="sms-from">Created from (UTC)</label>
          <input id="sms-from" name="from" type="date" defaultValue={range.from} />
        </div>
        <div class="field">
          <label for="sms-to">Created until (UTC)</label>
          <input id="sms-to" name="to" type="date" defaultValue={range.to} />
        </div>
        <button type="submit" class="secondary">
          Show campaigns
        </button>
      </form>
      <Messages state={state} />
      {state.data === undefined ? (
        !state.error && <p>Loading campaigns…</p>
      ) : state.data.length === 0 ? (
        <p>No SMS campaigns were created in these days.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">SMS campaigns</caption>
            <thead>
              <tr>
                <th scope="col">Campaign</th>
                <th scope="col">Sender</th>
                <th scope="col">Sent to</th>
                <th scope="col">Created (UTC)</th>
                <th scope="col">Sends at (UTC)</th>
                <th scope="col" class="num">
                  Price
                </th>
              </tr>
            </thead>
            <tbody>
              {state.data.map((c) => (
                <tr key={c.id}>
                  <th scope="row">
                    <button type="button" class="link" aria-label={`Campaign ${c.id}: numbers and statuses`} onClick={() => setOpen(c.id)}>
                      Campaign {c.id}
                    </button>
                  </th>
                  <td data-label="Sender">{c.sender_name}</td>
                  <td data-label="Sent to">{audienceOf(c.address_book_id, books.data)}</td>
                  <td data-label="Created">{c.date_created}</td>
                  <td data-label="Sends at">{c.send_date}</td>
                  <td class="num" data-label="Price">
                    {c.company_price} {c.company_currency}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  )
}

function CampaignInfo({ id, books, onBack }: { id: number; books: PhoneBook[] | undefined; onBack: () => void }) {
  const state = usePageState(async () => (await api<{ data: Info }>('GET', `/sms/campaigns/info/${id}`)).data)
  const [confirming, setConfirming] = useState(false)
  const info = state.data
  // The API cancels only before the first message went out: while every number is still "Ready to send".
  const cancelable = info !== undefined && info.task_phones_info.length > 0 && info.task_phones_info.every((n) => n.status === 0)
  const cancel = async () => {
    setConfirming(false)
    await state.act(() => api('PUT', `/sms/campaigns/cancel/${id}`), `Campaign ${id} canceled: what it cost was paid back.`)
  }
  return (
    <>
      <button type="button" class="secondary" onClick={onBack}>
        Back to the campaigns
      </button>
      <h2>Campaign {id}</h2>
      <Messages state={state} />
      {info && (
        <>
          <dl class="facts">
            <Fact term="Sender">{info.sender_name}</Fact>
            <Fact term="Sent to">{audienceOf(info.address_book_id, books)}</Fact>
            <Fact term="Price">
              {info.company_price} {info.currency}
            </Fact>
            <Fact term="Sends at (UTC)">{info.send_date}</Fact>
          </dl>
          {cancelable && (
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Cancel campaign
            </button>
          )}
          <div class="table-wrap">
            <table>
              <caption>Numbers of campaign {id}</caption>
              <thead>
                <tr>
                  <th scope="col">Number</th>
                  <th scope="col">Status</th>
                  <th scope="col">Country</th>
                  <th scope="col" class="num">
                    Cost
                  </th>
                </tr>
              </thead>
              <tbody>
                {info.task_phones_info.map((n) => (
                  <tr key={n.phone}>
                    <th scope="row">{n.phone}</th>
                    <td data-label="Status">{n.status_explain}</td>
                    <td data-label="Country">{n.country_code}</td>
                    <td class="num" data-label="Cost">
                      {n.money_spent} {info.currency}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {confirming && (
        <ConfirmDialog title={`Cancel campaign ${id}?`} confirm="Cancel campaign" keep="Keep it" onConfirm={cancel} onCancel={() => setConfirming(false)}>
          <p>None of its messages will be sent, and what it cost is paid back.</p>
        </ConfirmDialog>
      )}
    </>
  )
}
