// A new Viber campaign (POST /viber, API.md 4.10.1): a name, the kind (promotional, or transactional with the text
// of an approved template), a verified sender name, a list or numbers typed in, the text, an optional image and
// button, the message's lifetime, an optional time, and the SMS sent instead where Viber does not deliver within
// that lifetime (`additional.resend_sms`). Every rule is the API's: its refusal is shown as it words it.
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { Messages, fieldOf, usePageState } from '../parts/page-state.js'
import { phonesOf, wireDateOf } from '../parts/sections.js'
import { NUMBERS, SendToFields, targetOf } from '../parts/send-to-fields.js'
import { loadPhoneBooks } from './sms-numbers.js'
import { loadSmsSenders } from './sms-senders.js'
import { loadViberSenders } from './viber-senders.js'

/** An hour: a message not delivered by then is dropped (and the SMS goes out instead, when asked for). */
const DEFAULT_LIVE_SECONDS = 3600

/** The optional parts the API takes under `additional`; left out when empty. */
function additionalOf(form: HTMLFormElement, withSms: boolean) {
  const [text, link, image] = [fieldOf(form, 'button_text'), fieldOf(form, 'button_link'), fieldOf(form, 'image')]
  return {
    ...(text === '' && link === '' ? {} : { button: { text, link } }),
    ...(image === '' ? {} : { image: { link: image } }),
    ...(withSms ? { resend_sms: { status: true, sms_text: fieldOf(form, 'sms_text'), sms_sender_name: fieldOf(form, 'sms_sender') } } : {}),
  }
}

export function NewViberCampaign({ onCreated }: { onCreated: (id: number) => void }) {
  const choices = usePageState(() => Promise.all([loadPhoneBooks(), loadViberSenders(), loadSmsSenders()]))
  const [to, setTo] = useState('')
  const [withSms, setWithSms] = useState(false)
  const [books, viberSenders, smsSenders] = choices.data ?? [[], [], []]
  const verified = viberSenders.filter((s) => s.status === 'verified')
  const target = targetOf(to, books)

  const create = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const date = wireDateOf(fieldOf(form, 'date'))
    const body = {
      task_name: fieldOf(form, 'name'),
      message_type: Number(fieldOf(form, 'type')),
      sender_id: Number(fieldOf(form, 'sender')),
      message_live_time: Number(fieldOf(form, 'live')),
      send_date: date === '' ? 'now' : date,
      ...(target === NUMBERS ? { recipients: phonesOf(fieldOf(form, 'phones')) } : { address_book: Number(target) }),
      message: fieldOf(form, 'message'),
      additional: additionalOf(form, withSms),
    }
    let id = 0
    const ok = await choices.act(async () => {
      id = (await api<{ data: { task_id: number } }>('POST', '/viber', body)).data.task_id
    }, '')
    if (!ok) return
    form.reset()
    setWithSms(false)
    onCreated(id)
  }

  return (
    <details class="add-contact">
      <summary>New Viber campaign</summary>
      <form onSubmit={create}>
        <div class="field">
          <label for="viber-new-name">Campaign name</label>
          <input id="viber-new-name" name="name" maxLength={255} />
        </div>
        <div class="field">
          <label for="viber-new-type">Kind</label>
          <select id="viber-new-type" name="type">
            <option value="2">Promotional</option>
            <option value="3">Transactional (the text of an approved template)</option>
          </select>
        </div>
        <div class="field">
          <label for="viber-new-sender">Sender name</label>
          <select id="viber-new-sender" name="sender">
            {verified.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
            {verified.length === 0 && <option value="0">No verified sender name</option>}
          </select>
        </div>
        <SendToFields channel="viber" books={books} target={target} onChoose={setTo} phonesLabel="Numbers (separated by commas, spaces or lines; up to 1,000)" />
        <div class="field">
          <label for="viber-new-message">Message</label>
          <textarea id="viber-new-message" name="message" rows={4} />
        </div>
        <div class="field">
          <label for="viber-new-image">Image link (optional)</label>
          <input id="viber-new-image" name="image" inputMode="url" />
        </div>
        <div class="field">
          <label for="viber-new-button-text">Button text (optional)</label>
          <input id="viber-new-button-text" name="button_text" maxLength={1000} />
        </div>
        <div class="field">
          <label for="viber-new-button-link">Button link (optional)</label>
          <input id="viber-new-button-link" name="button_link" />
        </div>
        <div class="field">
          <label for="viber-new-live">Message lifetime (seconds, 60 to 86,400)</label>
          <input id="viber-new-live" name="live" inputMode="numeric" defaultValue={String(DEFAULT_LIVE_SECONDS)} />
        </div>
        <div class="field">
          <label for="viber-new-date">Send at (UTC; empty: now)</label>
          <input id="viber-new-date" name="date" type="datetime-local" />
        </div>
        <fieldset>
          <legend>SMS fallback</legend>
          <div class="check">
            <input id="viber-new-sms" type="checkbox" checked={withSms} onChange={(event) => setWithSms(event.currentTarget.checked)} />
            <label for="viber-new-sms">Send an SMS where Viber does not deliver in the message's lifetime</label>
          </div>
          {withSms && (
            <>
              <div class="field">
                <label for="viber-new-sms-text">SMS text</label>
                <textarea id="viber-new-sms-text" name="sms_text" rows={2} />
              </div>
              <div class="field">
                <label for="viber-new-sms-sender">SMS sender name</label>
                <select id="viber-new-sms-sender" name="sms_sender">
                  {smsSenders
                    .filter((s) => s.status === 1)
                    .map((s) => (
                      <option key={s.id} value={s.sender}>
                        {s.sender}
                      </option>
                    ))}
                  <option value="">None</option>
                </select>
              </div>
            </>
          )}
        </fieldset>
        <button type="submit">Create campaign</button>
      </form>
      <Messages state={choices} />
    </details>
  )
}
