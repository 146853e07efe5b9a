// The SMS blacklist (API.md 4.11 `/sms/black_list`): every entry with its description, add numbers with a
// description, remove one. No SMS campaign sends to a number on it.
import { api } from '../api.js'
import { Messages, usePageState } from '../parts/page-state.js'
import { BlacklistAddForm, BlacklistTable, type BlacklistAddition, type BlacklistEntry } from '../parts/phone-blacklist.js'

interface Added {
  counters: { added: number; exists: number; exceptions: number }
}

export function SmsBlacklist() {
  const state = usePageState(async () => (await api<{ data: BlacklistEntry[] }>('GET', '/sms/black_list')).data)

  const add = (body: BlacklistAddition) => {
    const added = ({ counters: c }: Added) => `Blacklist: ${c.added} added, ${c.exists} already there, ${c.exceptions} not a phone number.`
    return state.act(() => api<Added>('POST', '/sms/black_list', body), added)
  }
  const remove = (entry: BlacklistEntry) =>
    void state.act(() => api('DELETE', '/sms/black_list', { phones: [String(entry.phone)] }), `${entry.phone} removed from the blacklist.`)

  return (
    <>
      <h2>Blacklist</h2>
      <p>No SMS campaign sends to a blacklisted number.</p>
      <BlacklistAddForm channel="sms" onAdd={add} />
      <Messages state={state} />
      {state.data === undefined ? (
        !state.error && <p>Loading the blacklist…</p>
      ) : state.data.length === 0 ? (
        <p>The SMS blacklist is empty.</p>
      ) : (
        <BlacklistTable caption="Blacklisted numbers, oldest first" entries={state.data} keyOf={(entry) => entry.phone} onRemove={remove} />
      )}
    </>
  )
}
