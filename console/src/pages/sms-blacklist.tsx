// The SMS blacklist (API.md 4.11 `/sms/black_list`): every entry with its description, add numbers with a
// description, remove one. No SMS campaign sends to a number on it.
import { api } from '../api.js'
import { Messages, fieldOf, usePageState } from '../parts/page-state.js'
import { phonesOf } from '../parts/sections.js'

interface Entry {
  phone: number
  description: string
  add_date: string
}

interface Added {
  counters: { added: number; exists: number; exceptions: number }
}

export function SmsBlacklist() {
  const state = usePageState(async () => (await api<{ data: Entry[] }>('GET', '/sms/black_list')).data)

  const add = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const body = { phones: phonesOf(fieldOf(form, 'phones')), description: fieldOf(form, 'description') }
    const added = ({ counters: c }: Added) => `Blacklist: ${c.added} added, ${c.exists} already there, ${c.exceptions} not a phone number.`
    if (await state.act(() => api<Added>('POST', '/sms/black_list', body), added)) form.reset()
  }

  return (
    <>
      <h2>Blacklist</h2>
      <p>No SMS campaign sends to a blacklisted number.</p>
      <form class="inline" onSubmit={add}>
        <div class="field">
          <label for="sms-blacklist-phones">Numbers (separated by commas, spaces or lines)</label>
          <textarea id="sms-blacklist-phones" name="phones" rows={2} />
        </div>
        <div class="field">
          <label for="sms-blacklist-description">Description (optional)</label>
          <input id="sms-blacklist-description" name="description" maxLength={1000} />
        </div>
        <button type="submit">Add to blacklist</button>
      </form>
      <Messages state={state} />
      {state.data === undefined ? (
        !state.error && <p>Loading the blacklist…</p>
      ) : state.data.length === 0 ? (
        <p>The SMS blacklist is empty.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Blacklisted numbers, oldest first</caption>
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
              {state.data.map((entry) => (
                <tr key={entry.phone}>
                  <th scope="row">{entry.phone}</th>
                  <td data-label="Description">{entry.description}</td>
                  <td data-label="Added">{entry.add_date}</td>
                  <td>
                    <div class="actions">
                      <button
                        type="button"
                        class="secondary"
                        aria-label={`Remove ${entry.phone} from the blacklist`}
                        onClick={() => void state.act(() => api('DELETE', '/sms/black_list', { phones: [String(entry.phone)] }), `${entry.phone} removed from the blacklist.`)}
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
    </>
  )
}
