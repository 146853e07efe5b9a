// The contacts of one list (#/lists/{id}), all through the public API: a page of 50 at a time
// (GET /addressbooks/{id}/emails?limit&offset: the server answers each next or previous page by keyset, see
// docs/benchmarks.md "Paging the 1,000,000-contact list"), filtered by status (its active / not_active: the inactive
// ones from their own partial index, migration 0021), addresses found by their start in any case (the Tidings
// extension `email_prefix`, paged with `after_email`: one index range scan on a list of any size), and add, edit
// variables, unsubscribe and delete (after a confirmation).
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, ApiError } from '../api.js'
import { messageOf } from '../parts/dialog.js'
import { AddContact, ConfirmDelete, EditVariables } from './contact-forms.js'
import { ExportButton, ImportDialog } from './contacts-csv.js'

/** Half the API's largest page (100): still one screen of cards at 375 px after a scroll or two. */
const PAGE_SIZE = 50

export interface Book {
  id: number
  name: string
  all_email_qty: number
  active_email_qty: number
}

/** A contact as both GET …/emails (variables as a map) and GET …/emails/{email} (as a list) give it. */
export interface Contact {
  email: string
  status: number
  status_explain: string
  variables: Record<string, string | number>
}

const FILTERS = {
  all: { label: 'All statuses', query: '' },
  active: { label: 'Active and new', query: '&active=true' },
  inactive: { label: 'Not active (unsubscribed, bounced, …)', query: '&not_active=true' },
} as const
type Filter = keyof typeof FILTERS

type Editing = { kind: 'variables' | 'delete'; contact: Contact } | undefined

/** What is asked for: a page of a status filter, or a page of the addresses that start with a text. */
interface Query {
  filter: Filter
  offset: number
  /** The start of the addresses searched for, while a search is shown instead of the pages. */
  searched?: string
  /** A search's pages up to the one shown, each by the last address of the page before it (none for the first). */
  afters?: string[]
}

/** Contacts as loaded for a query: the range and the search shown always describe the rows shown. */
interface Shown extends Query {
  contacts: Contact[]
}

export function ContactsPage({ listId }: { listId: number }) {
  const [book, setBook] = useState<Book | undefined>()
  const [query, setQuery] = useState<Query>({ filter: 'all', offset: 0 })
  const [shown, setShown] = useState<Shown | undefined>()
  /** Only the answer to the latest query is shown, however the answers race. */
  const latest = useRef(0)
  const [error, setError] = useState<string | undefined>()
  const [status, setStatus] = useState('')
  const [editing, setEditing] = useState<Editing>()
  const [importing, setImporting] = useState(false)

  const loadBook = async () => {
    try {
      const [found] = await api<Book[]>('GET', `/addressbooks/${listId}`)
      setBook(found)
      if (found) document.title = `${found.name} · Lists · Tidings`
    } catch (err) {
      setError(messageOf(err))
    }
  }

  const loadContacts = async () => {
    const asked = ++latest.current
    try {
      const contacts = await api<Contact[]>(
        'GET',
        query.searched === undefined
          ? `/addressbooks/${listId}/emails?limit=${PAGE_SIZE}&offset=${query.offset}${FILTERS[query.filter].query}`
          : `/addressbooks/${listId}/emails?limit=${PAGE_SIZE}${searchQuery(query.searched, query.afters?.at(-1))}`,
      )
      if (asked !== latest.current) return
      setShown({ ...query, contacts })
      setError(undefined)
    } catch (err) {
      if (asked === latest.current) setError(messageOf(err))
    }
  }
  useEffect(() => void loadBook(), [])
  useEffect(() => void loadContacts(), [query])

  /** Runs a change, then reloads the counts and the contacts shown; false when the API refused it (its message is shown). */
  const act = async (work: () => Promise<unknown>, done: string): Promise<boolean> => {
    try {
      await work()
    } catch (err) {
      setError(messageOf(err))
      return false
    }
    setEditing(undefined)
    setStatus(done)
    setError(undefined)
    await Promise.all([loadBook(), loadContacts()])
    return true
  }

  const search = (event: Event) => {
    event.preventDefault()
    const start = String(new FormData(event.currentTarget as HTMLFormElement).get('email') ?? '').trim()
    if (start !== '') setQuery({ ...query, searched: start, afters: [] })
  }
  const clearSearch = (event: Event) => {
    ;(event.currentTarget as HTMLButtonElement).form?.reset()
    setQuery({ filter: query.filter, offset: 0 })
  }
  const turnTo = (offset: number) => setQuery({ ...query, offset })
  const turnSearch = (afters: string[]) => setQuery({ ...query, afters })
  const searching = query.searched !== undefined

  return (
    <section aria-labelledby="page-title">
      <p>
        <a href="#/lists">← All lists</a>
      </p>
      <h1 id="page-title">{book ? `Contacts of “${book.name}”` : 'Contacts'}</h1>
      {book && (
        <p class="muted">
          {book.all_email_qty.toLocaleString('en')} contacts, {book.active_email_qty.toLocaleString('en')} active.
        </p>
      )}
      <AddContact
        onAdd={(email, variables) =>
          act(async () => {
            const answer = await api<{ invalid_emails?: string[] }>('POST', `/addressbooks/${listId}/emails`, { emails: [{ email, variables }] })
            // The API skips an address it refuses (invalid, blacklisted) and says why, still answering 200.
            if (answer.invalid_emails?.length) throw new ApiError(422, `Not added: ${answer.invalid_emails.join('; ')}`)
          }, `${email} added.`)
        }
      />
      <div class="buttons csv">
        <button type="button" class="secondary" onClick={() => setImporting(true)}>
          Import CSV
        </button>
        {book && <ExportButton listId={listId} listName={book.name} />}
      </div>
      <div class="filters">
        <form class="inline" role="search" aria-label="Contacts" onSubmit={search}>
          <div class="field">
            <label for="contact-search">Find by the start of the address</label>
            <input id="contact-search" name="email" type="search" required maxLength={320} autocomplete="off" spellcheck={false} />
          </div>
          <button type="submit">Find</button>
          {searching && (
            <button type="button" class="secondary" onClick={clearSearch}>
              Show all
            </button>
          )}
        </form>
        <div class="field">
          <label for="status-filter">Status</label>
          <select
            id="status-filter"
            value={query.filter}
            disabled={searching}
            onChange={(event) => setQuery({ filter: (event.currentTarget as HTMLSelectElement).value as Filter, offset: 0 })}
          >
            {Object.entries(FILTERS).map(([value, { label }]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p class="status" role="status">
        {status}
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {shown === undefined ? (
        <p>Loading contacts…</p>
      ) : shown.contacts.length === 0 ? (
        <p>
          {shown.searched !== undefined
            ? shown.afters?.length
              ? 'No more matches.'
              : `No contact whose address starts with “${shown.searched}”.`
            : shown.offset === 0
              ? 'No contacts here.'
              : 'No more contacts.'}
        </p>
      ) : (
        <ContactTable
          contacts={shown.contacts}
          onEdit={(contact) => setEditing({ kind: 'variables', contact })}
          onDelete={(contact) => setEditing({ kind: 'delete', contact })}
          onUnsubscribe={(contact) =>
            void act(() => api('POST', `/addressbooks/${listId}/emails/unsubscribe`, { emails: [contact.email] }), `${contact.email} unsubscribed.`)
          }
        />
      )}
      {shown && shown.searched === undefined && !searching && (
        <div class="pager" role="group" aria-label="Pages of contacts">
          <button type="button" class="secondary" disabled={shown.offset === 0} onClick={() => turnTo(Math.max(0, shown.offset - PAGE_SIZE))}>
            Previous page
          </button>
          <span class="range" aria-live="polite">
            {shown.contacts.length > 0 ? `Contacts ${(shown.offset + 1).toLocaleString('en')}–${(shown.offset + shown.contacts.length).toLocaleString('en')}` : ''}
          </span>
          <button type="button" class="secondary" disabled={shown.contacts.length < PAGE_SIZE} onClick={() => turnTo(shown.offset + PAGE_SIZE)}>
            Next page
          </button>
        </div>
      )}
      {shown?.searched !== undefined && searching && (
        <div class="pager" role="group" aria-label="Pages of matches">
          <button type="button" class="secondary" disabled={!shown.afters?.length} onClick={() => turnSearch(shown.afters!.slice(0, -1))}>
            Previous page
          </button>
          <span class="range" aria-live="polite">
            {shown.contacts.length > 0 ? `Addresses starting with “${shown.searched}”, page ${(shown.afters?.length ?? 0) + 1}` : ''}
          </span>
          <button
            type="button"
            class="secondary"
            disabled={shown.contacts.length < PAGE_SIZE}
            onClick={() => turnSearch([...(shown.afters ?? []), shown.contacts.at(-1)!.email])}
          >
            Next page
          </button>
        </div>
      )}
      {editing?.kind === 'variables' && (
        <EditVariables
          contact={editing.contact}
          onCancel={() => setEditing(undefined)}
          onSave={(variables) =>
            act(() => api('POST', `/addressbooks/${listId}/emails/variable`, { email: editing.contact.email, variables }), `Variables of ${editing.contact.email} saved.`)
          }
        />
      )}
      {importing && (
        <ImportDialog
          listId={listId}
          onClose={() => {
            setImporting(false)
            void Promise.all([loadBook(), loadContacts()])
          }}
        />
      )}
      {editing?.kind === 'delete' && (
        <ConfirmDelete
          contact={editing.contact}
          onCancel={() => setEditing(undefined)}
          onDelete={() => act(() => api('DELETE', `/addressbooks/${listId}/emails`, { emails: [editing.contact.email] }), `${editing.contact.email} deleted.`)}
        />
      )}
    </section>
  )
}

/** The query of a search's page: the addresses that start with `start`, after the page that ended with `after`. */
function searchQuery(start: string, after: string | undefined): string {
  return `&email_prefix=${encodeURIComponent(start)}${after === undefined ? '' : `&after_email=${encodeURIComponent(after)}`}`
}

const UNSUBSCRIBED = 4

function ContactTable(props: { contacts: Contact[]; onEdit: (c: Contact) => void; onUnsubscribe: (c: Contact) => void; onDelete: (c: Contact) => void }) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">Contacts of the list with their status and variables</caption>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Status</th>
            <th scope="col">Variables</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.contacts.map((contact) => (
            <tr key={contact.email}>
              <th scope="row">{contact.email}</th>
              <td data-label="Status">{contact.status_explain}</td>
              <td data-label="Variables">{variablesText(contact.variables)}</td>
              <td>
                <div class="actions">
                  <button type="button" class="secondary" aria-label={`Edit variables of ${contact.email}`} onClick={() => props.onEdit(contact)}>
                    Edit
                  </button>
                  <button
                    type="button"
                    class="secondary"
                    aria-label={`Unsubscribe ${contact.email}`}
                    disabled={contact.status === UNSUBSCRIBED}
                    onClick={() => props.onUnsubscribe(contact)}
                  >
                    Unsubscribe
                  </button>
                  <button type="button" class="danger" aria-label={`Delete ${contact.email}`} onClick={() => props.onDelete(contact)}>
                    Delete
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function variablesText(variables: Record<string, string | number>): string {
  const entries = Object.entries(variables)
  return entries.length === 0 ? '—' : entries.map(([name, value]) => `${name}: ${value}`).join(', ')
}
