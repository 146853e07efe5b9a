// "Send a test" of the HTML in the editor (saved or not): POST /campaigns with `is_test` (API.md 4.2.1), which
// sends one email to the sender's own address. The API needs an active sender (its refusal is shown as it comes)
// and, as SendPulse's does, one list, though no contact of it receives the test. The test counts against the
// hourly campaign limit and costs one email on the balance; the API's 429 or balance refusal is shown the same way.
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { Messages, fieldOf, usePageState } from '../parts/page-state.js'
import { base64Of } from '../parts/templates.js'

interface Sender {
  email: string
  name: string
  status: string
}

interface Book {
  id: number
  name: string
}

/** The first 100 lists: any one does, the test goes to the sender alone. */
const LISTS = '/addressbooks?limit=100'

export function TemplateTestSend({ html, subject }: { html: string; subject: string }) {
  const state = usePageState(() => Promise.all([api<Sender[]>('GET', '/senders'), api<Book[]>('GET', LISTS)]))
  const [sending, setSending] = useState(false)
  // The template's name until the user writes a subject of their own.
  const [ownSubject, setOwnSubject] = useState<string>()
  const [senders, books] = state.data ?? [[], []]

  const send = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const sender = senders.find((s) => s.email === fieldOf(form, 'sender'))
    if (!sender) return
    const campaign = {
      sender_name: sender.name,
      sender_email: sender.email,
      subject: fieldOf(form, 'subject'),
      body: base64Of(html),
      list_id: Number(fieldOf(form, 'list')),
      is_test: true,
      name: `Test: ${fieldOf(form, 'subject')}`,
    }
    setSending(true)
    await state.act(() => api('POST', '/campaigns', campaign), `A test email to ${sender.email} is queued; it shows in the Outbox once sent.`)
    setSending(false)
  }

  return (
    <section aria-labelledby="test-send-title" class="test-send">
      <h2 id="test-send-title">Send a test</h2>
      <p>One email of the HTML above (saved or not) to the sender's own address. It counts as a campaign and costs one email.</p>
      {state.data !== undefined && senders.length === 0 && (
        <p class="notice">
          A test is sent from an active sender address: <a href="#/senders">add one on the Senders page</a> and activate it.
        </p>
      )}
      {state.data !== undefined && books.length === 0 && (
        <p class="notice">
          The API asks for a list even for a test (no contact of it receives the test): <a href="#/lists">create one on the Lists page</a>.
        </p>
      )}
      {senders.length > 0 && books.length > 0 && (
        <form class="inline" onSubmit={send}>
          <div class="field">
            <label for="test-sender">From</label>
            <select id="test-sender" name="sender">
              {senders.map((s) => (
                <option key={s.email} value={s.email}>
                  {s.status === 'Active' ? s.email : `${s.email} (${s.status.toLowerCase()})`}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="test-list">List (the API asks for one; only the sender receives the test)</label>
            <select id="test-list" name="list">
              {books.map((book) => (
                <option key={book.id} value={book.id}>
                  {book.name}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="test-subject">Subject</label>
            <input id="test-subject" name="subject" required maxLength={255} value={ownSubject ?? subject} onInput={(e) => setOwnSubject(e.currentTarget.value)} />
          </div>
          <button type="submit" disabled={sending || html.trim() === ''}>
            Send a test
          </button>
        </form>
      )}
      <Messages state={state} />
    </section>
  )
}
