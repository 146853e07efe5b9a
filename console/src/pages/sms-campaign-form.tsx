// A new SMS campaign: to a list (POST /sms/campaigns) or to numbers typed in (POST /sms/send), from an active
// sender name, with its text and an optional time. Its cost comes first (GET /sms/campaigns/cost, the same
// pricing the creation pays): the campaign is created only after the reader saw it and confirmed.
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { Dialog } from '../parts/dialog.js'
import { Messages, fieldOf, usePageState } from '../parts/page-state.js'
import { phonesOf, wireDateOf } from '../parts/sections.js'
import { NUMBERS, SendToFields, targetOf } from '../parts/send-to-fields.js'
import { loadPhoneBooks } from './sms-numbers.js'
import { loadSmsSenders } from './sms-senders.js'

/** What the form asks for, as the API takes it. */
type Draft = { sender: string; body: string; date?: string } & ({ addressBookId: number } | { phones: string[] })

function costQuery(draft: Draft): string {
  const query = new URLSearchParams({ sender: draft.sender, body: draft.body })
  if ('addressBookId' in draft) query.set('addressBookId', String(draft.addressBookId))
  // A JSON array in the query, one of the forms the API reads (COMPAT.md "SMS and Viber" 6). A GET carries no body
  // from a browser, and Node refuses a request line over 16 KB: about 700 numbers (~22 characters each, encoded).
  else query.set('phones', JSON.stringify(draft.phones))
  return query.toString()
}

export function NewSmsCampaign({ onCreated }: { onCreated: (id: number) => void }) {
  const choices = usePageState(() => Promise.all([loadPhoneBooks(), loadSmsSenders()]))
  const [to, setTo] = useState<string>('')
  const [priced, setPriced] = useState<{ draft: Draft; price: number; currency: string } | undefined>()
  const [books, senders] = choices.data ?? [[], []]
  const active = senders.filter((s) => s.status === 1)
  const target = targetOf(to, books)

  const price = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const date = wireDateOf(fieldOf(form, 'date'))
    const common = { sender: fieldOf(form, 'sender'), body: fieldOf(form, 'body'), ...(date === '' ? {} : { date }) }
    const draft: Draft = target === NUMBERS ? { ...common, phones: phonesOf(fieldOf(form, 'phones')) } : { ...common, addressBookId: Number(target) }
    choices.clearError()
    await choices.act(async () => {
      const { data } = await api<{ data: { price: number; currency: string } }>('GET', `/sms/campaigns/cost?${costQuery(draft)}`)
      setPriced({ draft, ...data })
    }, '')
  }
  const send = async () => {
    if (!priced) return
    const { draft } = priced
    let id = 0
    const ok = await choices.act(async () => {
      id = (await api<{ campaign_id: number }>('POST', 'addressBookId' in draft ? '/sms/campaigns' : '/sms/send', draft)).campaign_id
    }, '')
    if (!ok) return
    setPriced(undefined)
    onCreated(id)
  }

  return (
    <details class="add-contact">
      <summary>New SMS campaign</summary>
      <form onSubmit={price}>
        <SendToFields
          channel="sms"
          name="to"
          books={books}
          target={target}
          onChoose={setTo}
          phonesLabel="Numbers (separated by commas, spaces or lines; more than 500: add them to a list)"
        />
        <div class="field">
          <label for="sms-new-sender">Sender name</label>
          <select id="sms-new-sender" name="sender">
            {active.map((s) => (
              <option key={s.id} value={s.sender}>
                {s.sender}
              </option>
            ))}
            {active.length === 0 && <option value="">No active sender name</option>}
          </select>
        </div>
        <div class="field">
          <label for="sms-new-body">Message</label>
          <textarea id="sms-new-body" name="body" rows={4} />
        </div>
        <div class="field">
          <label for="sms-new-date">Send at (UTC; empty: now)</label>
          <input id="sms-new-date" name="date" type="datetime-local" />
        </div>
        <button type="submit">Show the cost</button>
      </form>
      {!priced && <Messages state={choices} />}
      {priced && (
        <Dialog title="Send this SMS campaign?" onCancel={() => setPriced(undefined)}>
          <p>
            It costs{' '}
            <strong>
              {priced.price} {priced.currency}
            </strong>
            , taken from the balance when it is created.
          </p>
          {/* The page's alert sits behind the modal dialog: a refusal is shown here. */}
          {choices.error && (
            <p class="error" role="alert">
              {choices.error}
            </p>
          )}
          <div class="buttons">
            <button type="button" onClick={() => void send()}>
              Create campaign
            </button>
            <button type="button" class="secondary" onClick={() => setPriced(undefined)}>
              Cancel
            </button>
          </div>
        </Dialog>
      )}
    </details>
  )
}
