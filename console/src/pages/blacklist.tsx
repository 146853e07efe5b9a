// The email blacklist through the public API (API.md 4.7): the addresses, 100 a page (GET /blacklist), add
// several at once with a comment (POST /blacklist) and remove one (DELETE /blacklist). The API takes the addresses
// as Base64 of "a@b.com, c@d.com" (COMPAT.md 17).
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { Messages, Pager, fieldOf, usePageState } from '../parts/page-state.js'

const PAGE_SIZE = 100

/** Base64 of the UTF-8 bytes (btoa alone takes only Latin-1: an internationalised address would throw). */
function base64Of(text: string): string {
  return btoa(Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join(''))
}

export function BlacklistPage() {
  const [offset, setOffset] = useState(0)
  const state = usePageState(() => api<string[]>('GET', `/blacklist?limit=${PAGE_SIZE}&offset=${offset}`), [offset])

  const add = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const emails = fieldOf(form, 'emails').split(/[\s,;]+/).filter(Boolean)
    if (emails.length === 0) return
    const comment = fieldOf(form, 'comment')
    const body = { emails: base64Of(emails.join(', ')), ...(comment === '' ? {} : { comment }) }
    const done = emails.length === 1 ? `${emails[0]} blacklisted.` : `${emails.length} addresses blacklisted.`
    if (await state.act(() => api('POST', '/blacklist', body), done)) form.reset()
  }

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Blacklist</h1>
      <p>No campaign sends to a blacklisted address.</p>
      <form class="inline" onSubmit={add}>
        <div class="field">
          <label for="blacklist-emails">Addresses (separated by commas, spaces or lines)</label>
          <textarea id="blacklist-emails" name="emails" required rows={3} />
        </div>
        <div class="field">
          <label for="blacklist-comment">Comment (optional)</label>
          <input id="blacklist-comment" name="comment" maxLength={1000} />
        </div>
        <button type="submit">Add to blacklist</button>
      </form>
      <Messages state={state} />
      {state.data === undefined ? (
        !state.error && <p>Loading the blacklist…</p>
      ) : state.data.length === 0 && offset === 0 ? (
        <p>The blacklist is empty.</p>
      ) : (
        <ul class="rows" aria-label="Blacklisted addresses">
          {state.data.map((email) => (
            <li key={email}>
              <span class="address">{email}</span>
              <button
                type="button"
                class="secondary"
                aria-label={`Remove ${email} from the blacklist`}
                onClick={() => void state.act(() => api('DELETE', '/blacklist', { emails: base64Of(email) }), `${email} removed from the blacklist.`)}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <Pager offset={offset} size={PAGE_SIZE} shown={state.data?.length ?? 0} onOffset={setOffset} />
    </section>
  )
}
