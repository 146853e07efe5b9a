// The balance and its ledger: GET /balance, GET /user/balance/detail (API.md 4.8) and the Tidings extension
// GET /balance/ledger (the entries the balance sums, newest first), 50 a page.
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { Messages, Pager, usePageState } from '../parts/page-state.js'

const PAGE_SIZE = 50

interface Balance {
  currency: string
  balance_currency: number
}

interface Detail {
  email: { tariff_name: string; emails_left: number; maximum_subscribers: number; current_subscribers: number }
}

interface Entry {
  id: number
  amount: number
  kind: string
  note: string | null
  created: string
}

const KIND_NAMES: Record<string, string> = { credit: 'Credit', write_off: 'Write-off', refund: 'Refund' }

/** Exact to the micro-unit (the API's precision), with at least the currency's two digits. */
export const money = (amount: number, currency: string) => `${amount.toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 6 })} ${currency}`

export function BalancePage() {
  const [offset, setOffset] = useState(0)
  const summary = usePageState(() => Promise.all([api<Balance>('GET', '/balance'), api<Detail>('GET', '/user/balance/detail')]))
  const ledger = usePageState(() => api<Entry[]>('GET', `/balance/ledger?limit=${PAGE_SIZE}&offset=${offset}`), [offset])
  const currency = summary.data?.[0].currency ?? ''

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Balance</h1>
      <Messages state={summary} />
      {summary.data && (
        <dl class="facts">
          <div>
            <dt>Balance</dt>
            <dd>{money(summary.data[0].balance_currency, currency)}</dd>
          </div>
          <div>
            <dt>Plan</dt>
            <dd>{summary.data[1].email.tariff_name}</dd>
          </div>
          <div>
            <dt>Emails the balance pays for</dt>
            <dd>{summary.data[1].email.emails_left.toLocaleString('en')}</dd>
          </div>
          <div>
            <dt>Subscribers</dt>
            <dd>
              {summary.data[1].email.current_subscribers.toLocaleString('en')} of {summary.data[1].email.maximum_subscribers.toLocaleString('en')}
            </dd>
          </div>
        </dl>
      )}
      <h2>Ledger</h2>
      <Messages state={ledger} />
      {ledger.data === undefined ? (
        !ledger.error && <p>Loading the ledger…</p>
      ) : ledger.data.length === 0 && offset === 0 ? (
        <p>No ledger entries.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Ledger entries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Date (UTC)</th>
                <th scope="col">Kind</th>
                <th scope="col" class="num">
                  Amount
                </th>
                <th scope="col">Note</th>
              </tr>
            </thead>
            <tbody>
              {ledger.data.map((entry) => (
                <tr key={entry.id}>
                  <th scope="row">{entry.created}</th>
                  <td data-label="Kind">{KIND_NAMES[entry.kind] ?? entry.kind}</td>
                  <td class="num" data-label="Amount">
                    {money(entry.amount, currency)}
                  </td>
                  <td data-label="Note">{entry.note ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} size={PAGE_SIZE} shown={ledger.data?.length ?? 0} onOffset={setOffset} />
    </section>
  )
}
