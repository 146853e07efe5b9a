// A new campaign (#/campaigns/new), POST /campaigns (API.md 4.2.1): from a template (own or system, GET /templates) or
// from HTML, to one or more lists (up to 10), from an active sender, with a subject and an optional sending time;
// "Send a test" posts the same with is_test (one list; one email, to the sender's own address). The API checks every
// rule and its message is shown as it says it.
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.js'
import { messageOf } from '../parts/dialog.js'
import { Messages, fieldOf } from '../parts/page-state.js'
import { sendDateOf } from './campaign-status.js'

/** The API's largest page: lists and templates beyond the first 100 are not offered. */
const PAGE = 100

interface Template {
  real_id: number
  name: string
}
interface Sender {
  email: string
  name: string
  status: string
}
interface Book {
  id: number
  name: string
  active_email_qty: number
}
interface Choices {
  own: Template[]
  system: Template[]
  senders: Sender[]
  books: Book[]
}

/** Base64 of the HTML's UTF-8 bytes, as the API reads `body`. */
function base64Of(text: string): string {
  const bytes = new TextEncoder().encode(text)
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone

export function CampaignForm() {
  const [choices, setChoices] = useState<Choices | undefined>()
  const [source, setSource] = useState<'template' | 'html'>('template')
  const [senderName, setSenderName] = useState('')
  const [when, setWhen] = useState('')
  const [busy, setBusy] = useState(false)
  const [state, setState] = useState<{ status: string; error: string | undefined }>({ status: '', error: undefined })

  useEffect(() => {
    Promise.all([
      api<Template[]>('GET', `/templates?owner=me&limit=${PAGE}`),
      api<Template[]>('GET', `/templates?limit=${PAGE}`),
      api<Sender[]>('GET', '/senders'),
      api<Book[]>('GET', `/addressbooks?limit=${PAGE}`),
    ]).then(
      ([own, system, senders, books]) => {
        const active = senders.filter((s) => s.status === 'Active')
        setChoices({ own, system, senders: active, books })
        setSenderName(active[0]?.name ?? '')
        if (own.length + system.length === 0) setSource('html')
      },
      (err: unknown) => setState({ status: '', error: messageOf(err) }),
    )
  }, [])

  /** The body of POST /campaigns from the form, `is_test` for "Send a test". */
  const bodyOf = (form: HTMLFormElement, isTest: boolean) => {
    const data = new FormData(form)
    const sendDate = sendDateOf(when)
    const name = fieldOf(form, 'name')
    return {
      sender_email: fieldOf(form, 'sender'),
      sender_name: fieldOf(form, 'sender_name'),
      subject: fieldOf(form, 'subject'),
      list_id: data.getAll('list').map(Number),
      ...(source === 'template' ? { template_id: Number(fieldOf(form, 'template')) } : { body: base64Of(String(data.get('html') ?? '')) }),
      ...(name === '' ? {} : { name }),
      ...(sendDate === undefined || isTest ? {} : { send_date: sendDate }),
      ...(isTest ? { is_test: true } : {}),
    }
  }

  const send = async (form: HTMLFormElement, isTest: boolean) => {
    if (!form.reportValidity()) return
    setBusy(true)
    try {
      const body = bodyOf(form, isTest)
      const created = await api<{ id: number }>('POST', '/campaigns', body)
      if (!isTest) {
        location.hash = `#/campaigns/${created.id}`
        return
      }
      setState({ status: `A test email is on its way to ${body.sender_email} (campaign ${created.id}).`, error: undefined })
    } catch (err) {
      setState({ status: '', error: messageOf(err) })
    }
    setBusy(false)
  }

  const onSubmit = (event: Event) => {
    event.preventDefault()
    void send(event.currentTarget as HTMLFormElement, false)
  }
  const chosen = choices?.senders ?? []
  return (
    <section aria-labelledby="page-title">
      <p>
        <a href="#/campaigns">Back to the campaigns</a>
      </p>
      <h1 id="page-title">New campaign</h1>
      {choices === undefined ? (
        !state.error && <p>Loading lists, senders and templates…</p>
      ) : (
        <form class="campaign-form" onSubmit={onSubmit}>
          <div class="field">
            <label for="campaign-name">Campaign name (optional; the subject by default)</label>
            <input id="campaign-name" name="name" maxLength={255} />
          </div>
          <fieldset>
            <legend>Content</legend>
            <div class="campaign-choices">
              <label>
                <input type="radio" name="source" value="template" checked={source === 'template'} onChange={() => setSource('template')} /> From a template
              </label>
              <label>
                <input type="radio" name="source" value="html" checked={source === 'html'} onChange={() => setSource('html')} /> From HTML
              </label>
            </div>
            {source === 'template' ? (
              <div class="field">
                <label for="campaign-template">Template</label>
                <select id="campaign-template" name="template" required>
                  {choices.own.length > 0 && (
                    <optgroup label="Your templates">
                      {choices.own.map((t) => (
                        <option key={t.real_id} value={t.real_id}>
                          {t.name}
                        </option>
                      ))}
                    </optgroup>
                  )}
                  <optgroup label="System templates">
                    {choices.system.map((t) => (
                      <option key={t.real_id} value={t.real_id}>
                        {t.name}
                      </option>
                    ))}
                  </optgroup>
                </select>
              </div>
            ) : (
              <div class="field">
                <label for="campaign-html">HTML source</label>
                <textarea id="campaign-html" name="html" rows={10} required spellcheck={false} />
              </div>
            )}
          </fieldset>
          <fieldset>
            <legend>Lists (up to 10; one for a test)</legend>
            {choices.books.length === 0 ? (
              <p>
                No lists yet: create one on the <a href="#/lists">Lists</a> page.
              </p>
            ) : (
              <ul class="campaign-choices">
                {choices.books.map((b) => (
                  <li key={b.id}>
                    <label>
                      <input type="checkbox" name="list" value={b.id} /> {b.name} ({b.active_email_qty.toLocaleString('en')} active)
                    </label>
                  </li>
                ))}
              </ul>
            )}
          </fieldset>
          <div class="field">
            <label for="campaign-sender">Sender</label>
            {chosen.length === 0 && <p class="error">No active sender: add and activate one on the Senders page.</p>}
            <select id="campaign-sender" name="sender" required onChange={(e) => setSenderName(chosen.find((s) => s.email === e.currentTarget.value)?.name ?? '')}>
              {chosen.map((s) => (
                <option key={s.email} value={s.email}>
                  {s.email}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="campaign-sender-name">Sender name</label>
            <input id="campaign-sender-name" name="sender_name" required maxLength={255} value={senderName} onInput={(e) => setSenderName(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="campaign-subject">Subject (may hold variables: {'{{name}}'})</label>
            <input id="campaign-subject" name="subject" required maxLength={998} />
          </div>
          <div class="field">
            <label for="campaign-when">Send at, in your time ({zone}); empty: now</label>
            <input id="campaign-when" name="when" type="datetime-local" value={when} onInput={(e) => setWhen(e.currentTarget.value)} aria-describedby="campaign-when-utc" />
            <p id="campaign-when-utc" class="muted">
              {sendDateOf(when) === undefined ? 'Sent as soon as it is created.' : `Sent at ${sendDateOf(when)} UTC.`}
            </p>
          </div>
          <Messages state={state} />
          <div class="buttons">
            <button type="submit" disabled={busy}>
              Create campaign
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={(e) => void send((e.currentTarget as HTMLButtonElement).form!, true)}>
              Send a test
            </button>
          </div>
        </form>
      )}
      {choices === undefined && <Messages state={state} />}
    </section>
  )
}
