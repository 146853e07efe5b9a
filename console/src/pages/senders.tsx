// Sender addresses through the public API (API.md 4.4): the list with each one's status, add (name and address),
// email the activation code to the address (GET /senders/{email}/code: 5 an hour), enter the code
// (POST /senders/{email}/code), delete after a confirmation (DELETE /senders).
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { ConfirmDialog } from '../parts/confirm-dialog.js'
import { Dialog } from '../parts/dialog.js'
import { Messages, fieldOf, usePageState } from '../parts/page-state.js'

interface Sender {
  email: string
  name: string
  status: string
}

type Editing = { kind: 'code' | 'delete'; sender: Sender } | undefined

const codePath = (email: string) => `/senders/${encodeURIComponent(email)}/code`

export function SendersPage() {
  const state = usePageState(() => api<Sender[]>('GET', '/senders'))
  const [editing, setEditing] = useState<Editing>()
  const done = async (work: () => Promise<unknown>, message: string) => {
    const ok = await state.act(work, message)
    if (ok) setEditing(undefined)
    return ok
  }

  const add = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const sender = { name: fieldOf(form, 'name'), email: fieldOf(form, 'email') }
    if (await state.act(() => api('POST', '/senders', sender), `Sender ${sender.email} added. Send it an activation code to activate it.`)) form.reset()
  }

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Senders</h1>
      <form class="inline" onSubmit={add}>
        <div class="field">
          <label for="sender-name">Sender name</label>
          <input id="sender-name" name="name" required maxLength={255} />
        </div>
        <div class="field">
          <label for="sender-email">Sender email</label>
          <input id="sender-email" name="email" type="email" required maxLength={320} />
        </div>
        <button type="submit">Add sender</button>
      </form>
      <Messages state={state} />
      {state.data === undefined ? (
        !state.error && <p>Loading senders…</p>
      ) : state.data.length === 0 ? (
        <p>No senders yet: add one above.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Sender addresses</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {state.data.map((sender) => (
                <tr key={sender.email}>
                  <th scope="row">{sender.email}</th>
                  <td data-label="Name">{sender.name}</td>
                  <td data-label="Status">{sender.status}</td>
                  <td>
                    <div class="actions">
                      {sender.status !== 'Active' && (
                        <>
                          <button
                            type="button"
                            class="secondary"
                            aria-label={`Send an activation code to ${sender.email}`}
                            onClick={() => void state.act(() => api('GET', codePath(sender.email)), `An activation code was emailed to ${sender.email}.`)}
                          >
                            Send code
                          </button>
                          <button type="button" class="secondary" aria-label={`Enter the activation code of ${sender.email}`} onClick={() => {
                              state.clearError()
                              setEditing({ kind: 'code', sender })
                            }}>
                            Enter code
                          </button>
                        </>
                      )}
                      <button type="button" class="danger" aria-label={`Delete ${sender.email}`} onClick={() => setEditing({ kind: 'delete', sender })}>
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
      {editing?.kind === 'code' && (
        <EnterCode
          sender={editing.sender}
          error={state.error}
          onCancel={() => setEditing(undefined)}
          onCode={(code) => done(() => api('POST', codePath(editing.sender.email), { code }), `Sender ${editing.sender.email} activated.`)}
        />
      )}
      {editing?.kind === 'delete' && (
        <ConfirmDialog
          title={`Delete ${editing.sender.email}?`}
          confirm="Delete sender"
          onConfirm={() => done(() => api('DELETE', '/senders', { email: editing.sender.email }), `Sender ${editing.sender.email} deleted.`)}
          onCancel={() => setEditing(undefined)}
        >
          <p>Campaigns can no longer be sent from this address. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </section>
  )
}

function EnterCode({ sender, error, onCode, onCancel }: { sender: Sender; error: string | undefined; onCode: (code: string) => Promise<boolean>; onCancel: () => void }) {
  const submit = (event: Event) => {
    event.preventDefault()
    const code = fieldOf(event.currentTarget as HTMLFormElement, 'code')
    if (code !== '') void onCode(code)
  }
  return (
    <Dialog title={`Activate ${sender.email}`} onCancel={onCancel}>
      <form onSubmit={submit}>
        <div class="field">
          <label for="sender-code">Activation code (from the email sent to {sender.email})</label>
          <input id="sender-code" name="code" required inputMode="numeric" pattern="[0-9]{1,20}" autoComplete="one-time-code" />
        </div>
        {/* The page's alert sits behind the modal dialog: the refusal is repeated here. */}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <div class="buttons">
          <button type="submit">Activate</button>
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  )
}
