// The Viber blacklist (API.md 4.10 `/v2/viber-service/phone-exception`): 100 entries a page, newest first, with
// their descriptions; add numbers with a description, remove one. No Viber campaign sends to a number on it.
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { Messages, Pager, usePageState } from '../parts/page-state.js'
import { BlacklistAddForm, BlacklistTable, type BlacklistAddition, type BlacklistEntry } from '../parts/phone-blacklist.js'

const PAGE_SIZE = 100
const PATH = '/v2/viber-service/phone-exception'

interface Entry extends BlacklistEntry {
  id: number
}

interface Added {
  counters: { added: number; exists: number }
}

export function ViberBlacklist() {
  const [offset, setOffset] = useState(0)
  const state = usePageState(async () => (await api<{ data: { list: Entry[]; total: number } }>('GET', `${PATH}?limit=${PAGE_SIZE}&offset=${offset}`)).data, [offset])

  const add = (body: BlacklistAddition) => {
    const added = ({ counters: c }: Added) => `Blacklist: ${c.added} added, ${c.exists} already there.`
    return state.act(() => api<Added>('POST', PATH, body), added)
  }
  const remove = (entry: Entry) => void state.act(() => api('DELETE', PATH, { phones: [String(entry.phone)] }), `${entry.phone} removed from the blacklist.`)

  return (
    <>
      <h2>Blacklist</h2>
      <p>No Viber campaign sends to a blacklisted number.</p>
      <BlacklistAddForm channel="viber" onAdd={add} />
      <Messages state={state} />
      {state.data === undefined ? (
        !state.error && <p>Loading the blacklist…</p>
      ) : state.data.total === 0 ? (
        <p>The Viber blacklist is empty.</p>
      ) : (
        <BlacklistTable
          caption={`Blacklisted numbers, newest first (${state.data.total.toLocaleString('en')} in all)`}
          entries={state.data.list}
          keyOf={(entry) => entry.id}
          onRemove={remove}
        />
      )}
      <Pager offset={offset} size={PAGE_SIZE} shown={state.data?.list.length ?? 0} onOffset={setOffset} />
    </>
  )
}
