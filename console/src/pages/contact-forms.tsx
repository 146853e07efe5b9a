// The forms of the contacts page: add a contact (with one variable if wanted), edit a contact's variables, confirm
// a deletion. The API merges variables (POST /addressbooks/{id}/emails/variable) and clears one given an empty value.
import { useState } from 'preact/hooks'
import { ConfirmDialog } from '../parts/confirm-dialog.js'
import { Dialog } from '../parts/dialog.js'
import type { Contact } from './contacts.js'

type Variables = Record<string, string>

function field(form: FormData, name: string): string {
  return String(form.get(name) ?? '').trim()
}

export function AddContact({ onAdd }: { onAdd: (email: string, variables: Variables) => Promise<boolean> }) {
  const submit = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const data = new FormData(form)
    const email = field(data, 'email')
    const [name, value] = [field(data, 'variable'), field(data, 'value')]
    if (email === '') return
    // A refused address stays in its field, to be corrected.
    if (await onAdd(email, name !== '' && value !== '' ? { [name]: value } : {})) form.reset()
  }
  return (
    <details class="add-contact">
      <summary>Add a contact</summary>
      <form class="inline" onSubmit={submit}>
        <div class="field">
          <label for="new-contact-email">Email address</label>
          <input id="new-contact-email" name="email" type="email" required maxLength={320} autocomplete="off" />
        </div>
        <div class="field">
          <label for="new-contact-variable">Variable name (optional)</label>
          <input id="new-contact-variable" name="variable" maxLength={255} placeholder="name" />
        </div>
        <div class="field">
          <label for="new-contact-value">Variable value</label>
          <input id="new-contact-value" name="value" maxLength={1000} />
        </div>
        <button type="submit">Add contact</button>
      </form>
    </details>
  )
}

export function EditVariables({ contact, onSave, onCancel }: { contact: Contact; onSave: (variables: Variables) => Promise<boolean>; onCancel: () => void }) {
  const names = Object.keys(contact.variables)
  const [saving, setSaving] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget as HTMLFormElement)
    const variables: Variables = {}
    // Every shown variable is sent: an emptied one is cleared by the API.
    names.forEach((name, i) => (variables[name] = field(data, `value-${i}`)))
    const [newName, newValue] = [field(data, 'new-name'), field(data, 'new-value')]
    if (newName !== '' && newValue !== '') variables[newName] = newValue
    setSaving(true)
    await onSave(variables)
    setSaving(false)
  }
  return (
    <Dialog title={`Variables of ${contact.email}`} onCancel={onCancel}>
      <form onSubmit={submit}>
        {names.length === 0 && <p>No variables yet.</p>}
        {names.map((name, i) => (
          <div class="field" key={name}>
            <label for={`variable-${i}`}>{name}</label>
            <input id={`variable-${i}`} name={`value-${i}`} maxLength={1000} value={String(contact.variables[name])} />
          </div>
        ))}
        <p class="muted">An emptied value removes the variable.</p>
        <div class="field">
          <label for="variable-new-name">New variable name</label>
          <input id="variable-new-name" name="new-name" maxLength={255} />
        </div>
        <div class="field">
          <label for="variable-new-value">New variable value</label>
          <input id="variable-new-value" name="new-value" maxLength={1000} />
        </div>
        <div class="buttons">
          <button type="submit" disabled={saving}>
            Save variables
          </button>
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  )
}

export function ConfirmDelete({ contact, onDelete, onCancel }: { contact: Contact; onDelete: () => Promise<boolean>; onCancel: () => void }) {
  return (
    <ConfirmDialog title={`Delete ${contact.email}?`} confirm="Delete contact" onConfirm={onDelete} onCancel={onCancel}>
      <p>The contact and its variables leave this list. This cannot be undone.</p>
    </ConfirmDialog>
  )
}
