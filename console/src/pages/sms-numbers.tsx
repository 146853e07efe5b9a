// The phone numbers of a mailing list through the API's `/sms/numbers…` routes (API.md 4.11): add numbers, delete
// numbers, and look one up (its status, variables and when it was added). The API lists no list's numbers, so
// the page shows the list's counts (GET /addressbooks) rather than the numbers themselves.
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { Messages, fieldOf, usePageState } from '../parts/page-state.js'
import { phonesOf } from '../parts/sections.js'

export interface PhoneBook {
  id: number
  name: string
  active_phones_quantity: number
  exc_phones_quantity: number
}

/** The API's largest page of lists: the first 100 are offered. */
export const loadPhoneBooks = () => api<PhoneBook[]>('GET', '/addressbooks?limit=100&offset=0')

/** "1 number", "2 numbers". */
export const numbersText = (count: number) => `${count.toLocaleString('en')} number${count === 1 ? '' : 's'}`

/** API.md 3.2: the statuses a number gets. */
const NUMBER_STATUS: Record<number, string> = { 0: 'New', 1: 'Active', 2: 'Confirmation requested' }

interface Counters {
  counters: { added: number; exists: number; exceptions: number }
}

interface Found {
  phone: string
  status: number
  variables: Record<string, string | number>
  added: string
}

export function SmsNumbers() {
  const state = usePageState(loadPhoneBooks)
  const [chosen, setChosen] = useState<number | undefined>()
  const [found, setFound] = useState<Found | undefined>()
  const book = state.data?.find((b) => b.id === chosen) ?? state.data?.[0]

  const change = (work: (form: HTMLFormElement, bookId: number) => Promise<boolean>) => async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    if (book && (await work(form, book.id))) form.reset()
  }
  const add = change((form, addressBookId) =>
    state.act(
      () => api<Counters>('POST', '/sms/numbers', { addressBookId, phones: phonesOf(fieldOf(form, 'phones')) }),
      ({ counters: c }) => `${c.added} added, ${c.exists} already in the list, ${c.exceptions} not a phone number.`,
    ),
  )
  const remove = change((form, addressBookId) =>
    state.act(
      () => api<{ counters: { deleted: number } }>('DELETE', '/sms/numbers', { addressBookId, phones: phonesOf(fieldOf(form, 'phones')) }),
      ({ counters }) => `${counters.deleted} deleted.`,
    ),
  )
  const lookUp = async (event: Event) => {
    event.preventDefault()
    const phone = fieldOf(event.currentTarget as HTMLFormElement, 'phone')
    if (!book) return
    setFound(undefined)
    await state.act(
      async () => setFound({ phone, ...(await api<{ data: Omit<Found, 'phone'> }>('GET', `/sms/numbers/info/${book.id}/${encodeURIComponent(phone)}`)).data }),
      `${phone} is in ${book.name}.`,
    )
  }

  if (state.data === undefined) return <>{state.error ? <Messages state={state} /> : <p>Loading lists…</p>}</>
  if (!book) return <p>No lists yet: create one on the Lists page first.</p>
  return (
    <>
      <h2>Numbers</h2>
      <div class="field">
        <label for="sms-numbers-list">List</label>
        <select id="sms-numbers-list" value={book.id} onChange={(event) => {
            setChosen(Number(event.currentTarget.value))
            setFound(undefined)
          }}>
          {state.data.map((b) => (
            <option key={b.id} value={b.id}>
              {b.name}
            </option>
          ))}
        </select>
      </div>
      <p>
        {book.name}: {numbersText(book.active_phones_quantity)} active, {book.exc_phones_quantity.toLocaleString('en')} excluded (blacklisted).
      </p>
      <Messages state={state} />
      <div class="number-forms">
        <form onSubmit={add}>
          <div class="field">
            <label for="sms-numbers-add">Numbers to add (separated by commas, spaces or lines)</label>
            <textarea id="sms-numbers-add" name="phones" rows={3} />
          </div>
          <button type="submit">Add numbers</button>
        </form>
        <form onSubmit={remove}>
          <div class="field">
            <label for="sms-numbers-delete">Numbers to delete</label>
            <textarea id="sms-numbers-delete" name="phones" rows={3} />
          </div>
          <button type="submit" class="danger">
            Delete numbers
          </button>
        </form>
      </div>
      <form class="inline" onSubmit={lookUp}>
        <div class="field">
          <label for="sms-numbers-find">Look up a number</label>
          <input id="sms-numbers-find" name="phone" inputMode="tel" maxLength={64} />
        </div>
        <button type="submit" class="secondary">
          Look up
        </button>
      </form>
      {found && <NumberFacts found={found} />}
    </>
  )
}

function NumberFacts({ found }: { found: Found }) {
  const variables = Object.entries(found.variables)
  return (
    <dl class="facts">
      <div>
        <dt>Number</dt>
        <dd>{found.phone}</dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd>{NUMBER_STATUS[found.status] ?? String(found.status)}</dd>
      </div>
      <div>
        <dt>Added (UTC)</dt>
        <dd>{found.added}</dd>
      </div>
      <div>
        <dt>Variables</dt>
        <dd>{variables.length === 0 ? 'none' : variables.map(([name, value]) => `${name}: ${value}`).join(', ')}</dd>
      </div>
    </dl>
  )
}
