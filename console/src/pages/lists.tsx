// Mailing lists with their contact counts: create, rename, delete (after a confirmation), a page of 100 at a time,
// each name leading to the list's contacts (contacts.tsx), all through the public API (GET/POST /addressbooks, PUT/DELETE /addressbooks/{id}).
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { ConfirmDialog } from '../parts/confirm-dialog.js'
import { Dialog } from '../parts/dialog.js'
import { Messages, usePageState } from '../parts/page-state.js'

/** The API's largest page of lists (src/api/routes/addressbooks.ts MAX_PAGE). */
const PAGE_SIZE = 100

interface Book {
  id: number
  name: string
  all_email_qty: number
  active_email_qty: number
  inactive_email_qty: number
  creationdate: string
}

type Editing = { kind: 'rename' | 'delete'; book: Book } | undefined

export function ListsPage() {
  const [offset, setOffset] = useState(0)
  const [editing, setEditing] = useState<Editing>()
  const state = usePageState(() => api<Book[]>('GET', `/addressbooks?limit=${PAGE_SIZE}&offset=${offset}`), [offset])
  const books = state.data

  /** Runs a change, then reloads the page of lists; false when the API refused it (its message is shown). */
  const act = async (work: () => Promise<unknown>, done: string): Promise<boolean> => {
    const ok = await state.act(work, done)
    if (ok) setEditing(undefined)
    return ok
  }

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Lists</h1>
      <CreateList onCreate={(name) => act(() => api('POST', '/addressbooks', { bookName: name }), `List “${name}” created.`)} />
      <Messages state={state} />
      {books === undefined ? (
        <p>Loading lists…</p>
      ) : books.length === 0 && offset === 0 ? (
        <p>No lists yet: create one above.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Mailing lists with their contact counts</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" class="num">Contacts</th>
                <th scope="col" class="num">Active</th>
                <th scope="col" class="num">Inactive</th>
                <th scope="col">Created (UTC)</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {books.map((book) => (
                <tr key={book.id}>
                  <th scope="row">
                    <a href={`#/lists/${book.id}`}>{book.name}</a>
                  </th>
                  <td class="num" data-label="Contacts">
                    {book.all_email_qty.toLocaleString('en')}
                  </td>
                  <td class="num" data-label="Active">
                    {book.active_email_qty.toLocaleString('en')}
                  </td>
                  <td class="num" data-label="Inactive">
                    {book.inactive_email_qty.toLocaleString('en')}
                  </td>
                  <td data-label="Created">{book.creationdate}</td>
                  <td>
                    <div class="actions">
                      <button type="button" class="secondary" aria-label={`Rename ${book.name}`} onClick={() => setEditing({ kind: 'rename', book })}>
                        Rename
                      </button>
                      <button type="button" class="danger" aria-label={`Delete ${book.name}`} onClick={() => setEditing({ kind: 'delete', book })}>
                        Delete
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="pager">
        <button type="button" class="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
          Previous page
        </button>
        <button type="button" class="secondary" disabled={(books?.length ?? 0) < PAGE_SIZE} onClick={() => setOffset(offset + PAGE_SIZE)}>
          Next page
        </button>
      </div>
      {editing?.kind === 'rename' && (
        <RenameList
          book={editing.book}
          onCancel={() => setEditing(undefined)}
          onRename={(name) => act(() => api('PUT', `/addressbooks/${editing.book.id}`, { name }), `List renamed to “${name}”.`)}
        />
      )}
      {editing?.kind === 'delete' && (
        <ConfirmDelete
          book={editing.book}
          onCancel={() => setEditing(undefined)}
          onDelete={() => act(() => api('DELETE', `/addressbooks/${editing.book.id}`), `List “${editing.book.name}” deleted.`)}
        />
      )}
    </section>
  )
}

function CreateList({ onCreate }: { onCreate: (name: string) => Promise<boolean> }) {
  const submit = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const name = String(new FormData(form).get('name') ?? '').trim()
    if (name === '') return
    // A refused name stays in the field, to be corrected.
    if (await onCreate(name)) form.reset()
  }
  return (
    <form class="inline" onSubmit={submit}>
      <div class="field">
        <label for="new-list-name">New list name</label>
        <input id="new-list-name" name="name" required maxLength={255} />
      </div>
      <button type="submit">Create list</button>
    </form>
  )
}

function RenameList({ book, onRename, onCancel }: { book: Book; onRename: (name: string) => Promise<boolean>; onCancel: () => void }) {
  const submit = (event: Event) => {
    event.preventDefault()
    const name = String(new FormData(event.currentTarget as HTMLFormElement).get('name') ?? '').trim()
    if (name !== '') void onRename(name)
  }
  return (
    <Dialog title={`Rename “${book.name}”`} onCancel={onCancel}>
      <form onSubmit={submit}>
        <div class="field">
          <label for="rename-list-name">New name</label>
          <input id="rename-list-name" name="name" required maxLength={255} value={book.name} />
        </div>
        <div class="buttons">
          <button type="submit">Save name</button>
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  )
}

function ConfirmDelete({ book, onDelete, onCancel }: { book: Book; onDelete: () => Promise<boolean>; onCancel: () => void }) {
  return (
    <ConfirmDialog title={`Delete “${book.name}”?`} confirm="Delete list" onConfirm={onDelete} onCancel={onCancel}>
      <p>
        The list and its {book.all_email_qty.toLocaleString('en')} contacts will be deleted. This cannot be undone.
      </p>
    </ConfirmDialog>
  )
}
