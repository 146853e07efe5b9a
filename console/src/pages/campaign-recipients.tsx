// A campaign's recipients with their statuses, 50 a page (the Tidings extension GET /campaigns/{id}/recipients: keyset
// by message id, so a page deep in a 1,000,000-message campaign costs what the first does), filtered by status. The
// statuses offered are those the campaign has, with the API's words and counts (statistics.general).
import { useEffect, useRef, useState } from 'preact/hooks'
import { api } from '../api.js'
import { messageOf } from '../parts/dialog.js'
import { Messages } from '../parts/page-state.js'

const PAGE_SIZE = 50

interface Recipient {
  id: number
  email: string
  status: number
  status_explain: string
  error: string | null
  sent: string | null
  opened: string | null
  clicked: string | null
  country: string | null
}

/** A page asked for: the status filter ('' for all) and the id the page starts after. */
interface Query {
  status: string
  /** The `after` of every page before this one, then this one's: Previous goes back one. */
  afters: number[]
}

export function RecipientsTable({ base, statuses }: { base: string; statuses: { code: number; count: number; explain: string }[] }) {
  const [query, setQuery] = useState<Query>({ status: '', afters: [0] })
  const [shown, setShown] = useState<{ query: Query; rows: Recipient[]; more: boolean } | undefined>()
  const [error, setError] = useState<string | undefined>()
  /** Only the answer to the latest query is shown, however the answers race. */
  const latest = useRef(0)

  useEffect(() => {
    const asked = ++latest.current
    const after = query.afters.at(-1) ?? 0
    const filter = query.status === '' ? '' : `&status=${query.status}`
    // One more than shown: whether a next page exists, without an empty last page.
    api<Recipient[]>('GET', `${base}/recipients?limit=${PAGE_SIZE + 1}&after=${after}${filter}`).then(
      (rows) => {
        if (asked !== latest.current) return
        setShown({ query, rows: rows.slice(0, PAGE_SIZE), more: rows.length > PAGE_SIZE })
        setError(undefined)
      },
      (err) => asked === latest.current && setError(messageOf(err)),
    )
  }, [query])

  const first = ((shown?.query.afters.length ?? 1) - 1) * PAGE_SIZE
  return (
    <>
      <div class="field recipient-filter">
        <label for="recipient-status">Status</label>
        <select id="recipient-status" value={query.status} onChange={(event) => setQuery({ status: (event.currentTarget as HTMLSelectElement).value, afters: [0] })}>
          <option value="">All statuses</option>
          {statuses.map((s) => (
            <option key={s.code} value={String(s.code)}>
              {s.explain || `Status ${s.code}`} ({s.count.toLocaleString('en')})
            </option>
          ))}
        </select>
      </div>
      <Messages state={{ status: '', error }} />
      {shown === undefined ? (
        !error && <p>Loading recipients…</p>
      ) : shown.rows.length === 0 ? (
        <p>No recipients here.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Recipients and what happened to their messages</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Status</th>
                <th scope="col">Sent (UTC)</th>
                <th scope="col">Opened (UTC)</th>
                <th scope="col">Clicked (UTC)</th>
                <th scope="col">Country</th>
              </tr>
            </thead>
            <tbody>
              {shown.rows.map((r) => (
                <tr key={r.id}>
                  <th scope="row">{r.email}</th>
                  <td data-label="Status">
                    {r.status_explain || `Status ${r.status}`}
                    {r.error && <span class="muted"> ({r.error})</span>}
                  </td>
                  <td data-label="Sent">{r.sent ?? '—'}</td>
                  <td data-label="Opened">{r.opened ?? '—'}</td>
                  <td data-label="Clicked">{r.clicked ?? '—'}</td>
                  <td data-label="Country">{r.country ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {shown && (
        <div class="pager" role="group" aria-label="Pages of recipients">
          <button type="button" class="secondary" disabled={shown.query.afters.length === 1} onClick={() => setQuery({ ...shown.query, afters: shown.query.afters.slice(0, -1) })}>
            Previous page
          </button>
          <span class="range" aria-live="polite">
            {shown.rows.length > 0 ? `Recipients ${(first + 1).toLocaleString('en')}–${(first + shown.rows.length).toLocaleString('en')}` : ''}
          </span>
          <button type="button" class="secondary" disabled={!shown.more} onClick={() => setQuery({ ...shown.query, afters: [...shown.query.afters, shown.rows.at(-1)!.id] })}>
            Next page
          </button>
        </div>
      )}
    </>
  )
}
