// The Viber blacklist (API.md 4.10 `/v2/viber-service/phone-exception`): 100 entries a page, newest first, with
// their descriptions; add numbers with a description, remove one. No Viber campaign sends to a number on it.
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { Messages, Pager, fieldOf, usePageState } from '../parts/page-state.js'
import { phonesOf } from '../parts/sections.js'

const PAGE_SIZE = 100
const PATH = '/v2/viber-service/phone-exception'

interface Entry {
  id: number
  phone: number
  description: string
  add_date: string
}

export function ViberBlacklist() {
  const [offset, setOffset] = useState(0)
  const state = usePageState(async () => (await api<{ data: { list: Entry[]; total: number } }>('GET', `${PATH}?limit=${PAGE_SIZE}&offset=${offset}`)).data, [offset])

  const add = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const body = { phones: phonesOf(fieldOf(form, 'phones')), description: fieldOf(form, 'description') }
    const added = ({ counters: c }: { counters: { added: number; exists: number } }) => `Blacklist: ${c.added} added, ${c.exists} already there.`
    if (await state.act(() => api<{ counters: { added: number; exists: number } }>('POST', PATH, body), added)) form.reset()
  }

  return (
    <>
      <h2>Blacklist</h2>
      <p>No Viber campaign sends to a blacklisted number.</p>
      <form class="inline" onSubmit={add}>
        <div class="field">
          <label for="viber-blacklist-phones">Numbers (separated by commas, spaces or lines)</label>
          <textarea id="viber-blacklist-phones" name="phones" rows={2} />
        </div>
        <div class="field">
          <label for="viber-blacklist-description">Description (optional)</label>
          <input id="viber-blacklist-description" name="description" maxLength={1000} />
        </div>
        <button type="submit">Add to blacklist</button>
      </form>
      <Messages state={state} />
      {state.data === undefined ? (
        !state.error && <p>Loading the blacklist…</p>
      ) : state.data.total === 0 ? (
        <p>The Viber blacklist is empty.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Blacklisted numbers, newest first ({state.data.total.toLocaleString('en')} in all)</caption>
            <thead>
              <tr>
                <th scope="col">Number</th>
                <th scope="col">Description</th>
                <th scope="col">Added (UTC)</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {state.data.list.map((entry) => (
                <tr key={entry.id}>
                  <th scope="row">{entry.phone}</th>
                  <td data-label="Description">{entry.description}</td>
                  <td data-label="Added">{entry.add_date}</td>
                  <td>
                    <div class="actions">
                      <button
                        type="button"
                        class="secondary"
                        aria-label={`Remove ${entry.phone} from the blacklist`}
                        onClick={() => void state.act(() => api('DELETE', PATH, { phones: [String(entry.phone)] }), `${entry.phone} removed from the blacklist.`)}
                      >
                        Remove
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} size={PAGE_SIZE} shown={state.data?.list.length ?? 0} onOffset={setOffset} />
    </>
  )
}
