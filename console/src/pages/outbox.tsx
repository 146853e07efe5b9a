// The outbox (GET /outbox, a Tidings extension): the service emails captured or sent for the account, or with a
// campaign ID that campaign's messages as they were sent, 50 a page; one message opened as a mail client shows it.
//
// A message's HTML is a tenant's content, so it is treated as hostile. It is loaded from its own route,
// GET /outbox/{id}/body (api/routes/outbox-body.ts), into an <iframe sandbox> with no allow-* token at all: no script
// runs (<script>, onerror=…), its document has an opaque origin (it cannot read the console or send the console's
// cookie as same-origin), and it may not submit forms, open popups or navigate the console. The route's own policy
// says the same (`sandbox`, even when the page is opened in a tab) and lets the message keep its inline styles, and
// fetch nothing but inline (data:) images: no read receipt, no tracking pixel, until the reader presses "Load remote
// images", which loads the page again with `images=true` (images only: remote stylesheets and fonts stay out).
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { Messages, Pager, fieldOf, usePageState } from '../parts/page-state.js'

const PAGE_SIZE = 50

export interface OutboxEmail {
  id: number
  kind: string
  from_email: string
  from_name: string
  to: string
  subject: string
  html: string
  text: string
  status: string
  created: string
  sent: string | null
}

/** Whether the message refers to remote content (images, stylesheets) that the frame does not load. */
function hasRemoteContent(html: string): boolean {
  return /(?:src|href|background)\s*=\s*["']?\s*(?:https?:)?\/\/|url\(\s*["']?\s*(?:https?:)?\/\//i.test(html)
}

export function OutboxPage() {
  const [offset, setOffset] = useState(0)
  const [campaignId, setCampaignId] = useState<number | undefined>()
  const [open, setOpen] = useState<OutboxEmail | undefined>()
  const query = `limit=${PAGE_SIZE}&offset=${offset}${campaignId === undefined ? '' : `&campaign_id=${campaignId}`}`
  const state = usePageState(() => api<OutboxEmail[]>('GET', `/outbox?${query}`), [query])

  const filter = (event: Event) => {
    event.preventDefault()
    const id = fieldOf(event.currentTarget as HTMLFormElement, 'campaign')
    setOpen(undefined)
    setOffset(0)
    setCampaignId(id === '' ? undefined : Number(id))
  }

  if (open) return <Message email={open} campaignId={campaignId} onBack={() => setOpen(undefined)} />
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Outbox</h1>
      <p>The emails the service captured or sent for this account, oldest first; with a campaign ID, that campaign's messages.</p>
      <form class="inline" onSubmit={filter}>
        <div class="field">
          <label for="outbox-campaign">Campaign ID (empty: service emails)</label>
          <input id="outbox-campaign" name="campaign" inputMode="numeric" pattern="[1-9][0-9]{0,15}" value={campaignId ?? ''} />
        </div>
        <button type="submit">Show</button>
      </form>
      <Messages state={state} />
      {state.data === undefined ? (
        !state.error && <p>Loading the outbox…</p>
      ) : state.data.length === 0 && offset === 0 ? (
        <p>No messages.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Messages in the outbox</caption>
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">To</th>
                <th scope="col">Kind</th>
                <th scope="col">Status</th>
                <th scope="col">Created (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {state.data.map((email) => (
                <tr key={email.id}>
                  <th scope="row">
                    <button type="button" class="link" onClick={() => setOpen(email)}>
                      {email.subject === '' ? '(no subject)' : email.subject}
                    </button>
                  </th>
                  <td data-label="To">{email.to}</td>
                  <td data-label="Kind">{email.kind}</td>
                  <td data-label="Status">{email.status}</td>
                  <td data-label="Created">{email.created}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} size={PAGE_SIZE} shown={state.data?.length ?? 0} onOffset={setOffset} />
    </section>
  )
}

/** The address of a message's body page: a service email's, or with `campaignId` a campaign message's. */
function bodyUrl(id: number, campaignId: number | undefined, images: boolean): string {
  const query = [campaignId === undefined ? '' : `campaign_id=${campaignId}`, images ? 'images=true' : ''].filter(Boolean).join('&')
  return `/outbox/${id}/body${query ? `?${query}` : ''}`
}

function Message({ email, campaignId, onBack }: { email: OutboxEmail; campaignId: number | undefined; onBack: () => void }) {
  const [tab, setTab] = useState<'html' | 'text'>(email.html === '' ? 'text' : 'html')
  const [images, setImages] = useState(false)
  const from = email.from_name === '' ? email.from_email : `${email.from_name} <${email.from_email}>`
  return (
    <section aria-labelledby="page-title">
      <button type="button" class="secondary" onClick={onBack}>
        Back to the outbox
      </button>
      <h1 id="page-title">{email.subject === '' ? '(no subject)' : email.subject}</h1>
      <dl class="facts headers">
        <div>
          <dt>From</dt>
          <dd>{from}</dd>
        </div>
        <div>
          <dt>To</dt>
          <dd>{email.to}</dd>
        </div>
        <div>
          <dt>Date (UTC)</dt>
          <dd>{email.sent ?? email.created}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>{email.status}</dd>
        </div>
      </dl>
      <div role="tablist" aria-label="Message body" class="tabs">
        <button type="button" role="tab" id="tab-html" aria-selected={tab === 'html'} aria-controls="body-panel" class={tab === 'html' ? undefined : 'secondary'} onClick={() => setTab('html')}>
          HTML
        </button>
        <button type="button" role="tab" id="tab-text" aria-selected={tab === 'text'} aria-controls="body-panel" class={tab === 'text' ? undefined : 'secondary'} onClick={() => setTab('text')}>
          Text
        </button>
      </div>
      <div role="tabpanel" id="body-panel" aria-labelledby={tab === 'html' ? 'tab-html' : 'tab-text'}>
        {tab === 'html' ? (
          <>
            {hasRemoteContent(email.html) &&
              (images ? (
                <p class="notice">Remote images are shown; remote styles and fonts stay blocked.</p>
              ) : (
                <div class="notice remote-content">
                  <p>Remote images and styles in this message are blocked.</p>
                  <button type="button" class="secondary" onClick={() => setImages(true)}>
                    Load remote images
                  </button>
                </div>
              ))}
            <iframe class="message" title="Message body (HTML)" sandbox="" referrerpolicy="no-referrer" src={bodyUrl(email.id, campaignId, images)} />
          </>
        ) : (
          <pre class="message-text">{email.text === '' ? '(no text part)' : email.text}</pre>
        )}
      </div>
    </section>
  )
}
