// The account's webhooks through the public API (API.md 4.9, docs/webhooks.md): the records (one action of one URL
// each), add a URL with its actions, delete one after a confirmation, the signing secret shown on demand and rotated
// after a confirmation (Tidings extensions), and a webhook's delivery log, failed events and test event
// (webhook-log.tsx).
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { ConfirmDialog } from '../parts/confirm-dialog.js'
import { Messages, fieldOf, usePageState } from '../parts/page-state.js'
import { WebhookLog } from './webhook-log.js'

export interface Webhook {
  id: number
  url: string
  action: string
}

const BASE = '/v2/email-service/webhook'

/** API.md 6, in its order (services/events/webhooks.ts WEBHOOK_ACTIONS), with what each is sent for. */
const ACTIONS: [string, string][] = [
  ['new_emails', 'contact added'],
  ['delete', 'contact deleted'],
  ['unsubscribe', 'unsubscribed'],
  ['task_status_update', 'campaign status'],
  ['open', 'opened'],
  ['delivered', 'delivered'],
  ['redirect', 'link followed'],
  ['spam', 'complaint'],
  ['hard_bounces', 'hard bounce'],
  ['soft_bounces', 'soft bounce'],
]

type Confirming = { kind: 'delete'; webhook: Webhook } | { kind: 'rotate' } | undefined

export function WebhooksPage() {
  const state = usePageState(async () => (await api<{ data: Webhook[] }>('GET', BASE)).data)
  const [confirming, setConfirming] = useState<Confirming>()
  const [shown, setShown] = useState<Webhook>()
  const [secret, setSecret] = useState<string>()

  const add = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const actions = new FormData(form).getAll('actions').map(String)
    const url = fieldOf(form, 'url')
    // The API names a missing action in its own words; the form asks for one before calling it.
    if (await state.act(() => api('POST', BASE, { url, actions }), `${url} now receives ${actions.join(', ') || 'no action'}.`)) form.reset()
  }
  const remove = async (webhook: Webhook) => {
    if (await state.act(() => api('DELETE', `${BASE}/${webhook.id}`), `Webhook ${webhook.action} of ${webhook.url} deleted.`)) {
      setConfirming(undefined)
      if (shown?.id === webhook.id) setShown(undefined)
    }
  }
  const showSecret = () => state.act(async () => setSecret((await api<{ data: { secret: string } }>('GET', `${BASE}/secret`)).data.secret), 'The signing secret is shown below.')
  const rotate = async () => {
    const done = 'A new signing secret was made: deliveries from now on are signed with it.'
    if (await state.act(async () => setSecret((await api<{ data: { secret: string } }>('POST', `${BASE}/secret`)).data.secret), done)) setConfirming(undefined)
  }

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Webhooks</h1>
      <p>Each webhook posts one kind of event of the account to a URL, signed with the account's secret.</p>
      <form class="webhook-add" onSubmit={add}>
        <div class="field">
          <label for="webhook-url">URL</label>
          <input id="webhook-url" name="url" type="url" required maxLength={2000} placeholder="https://example.com/hooks" />
        </div>
        <fieldset class="webhook-actions">
          <legend>Actions</legend>
          {ACTIONS.map(([action, meaning]) => (
            <label key={action}>
              <input type="checkbox" name="actions" value={action} /> {action} <span class="muted">({meaning})</span>
            </label>
          ))}
        </fieldset>
        <button type="submit">Add webhook</button>
      </form>
      <Messages state={state} />
      {state.data === undefined ? (
        !state.error && <p>Loading webhooks…</p>
      ) : state.data.length === 0 ? (
        <p>No webhooks yet: add one above.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Webhooks</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Action</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {state.data.map((webhook) => (
                <tr key={webhook.id}>
                  <th scope="row">{webhook.url}</th>
                  <td data-label="Action">{webhook.action}</td>
                  <td>
                    <div class="actions">
                      <button type="button" class="secondary" aria-label={`Delivery log of ${webhook.action} to ${webhook.url}`} aria-pressed={shown?.id === webhook.id} onClick={() => setShown(webhook)}>
                        Delivery log
                      </button>
                      <button type="button" class="danger" aria-label={`Delete ${webhook.action} to ${webhook.url}`} onClick={() => setConfirming({ kind: 'delete', webhook })}>
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
      {shown && <WebhookLog key={shown.id} webhook={shown} />}
      <h2>Signing secret</h2>
      <p>
        Receivers check each request's <code>webhook-signature</code> header with this secret (Standard Webhooks).
      </p>
      {secret && <p class="secret"><code aria-label="Signing secret">{secret}</code></p>}
      <div class="buttons">
        {!secret && (
          <button type="button" class="secondary" onClick={() => void showSecret()}>
            Show secret
          </button>
        )}
        <button type="button" class="danger" onClick={() => setConfirming({ kind: 'rotate' })}>
          Rotate secret
        </button>
      </div>
      {confirming?.kind === 'delete' && (
        <ConfirmDialog
          title={`Delete ${confirming.webhook.action} to ${confirming.webhook.url}?`}
          confirm="Delete webhook"
          onConfirm={() => remove(confirming.webhook)}
          onCancel={() => setConfirming(undefined)}
        >
          <p>No more {confirming.webhook.action} events go to this URL. This cannot be undone.</p>
        </ConfirmDialog>
      )}
      {confirming?.kind === 'rotate' && (
        <ConfirmDialog title="Rotate the signing secret?" confirm="Rotate secret" onConfirm={rotate} onCancel={() => setConfirming(undefined)}>
          <p>Deliveries are signed with the new secret at once: receivers that check the old one refuse them until they are given the new one.</p>
        </ConfirmDialog>
      )}
    </section>
  )
}
