// The question asked before a delete, a cancel or a rotation that cannot be undone: one modal dialog for every page.
import type { ComponentChildren } from 'preact'
import { Dialog } from './dialog.js'

/**
 * A modal Dialog saying what will happen (`children`), a danger button named `confirm` and a way back named `keep`.
 * The way back has the focus: Enter pressed by habit must not delete anything.
 */
export function ConfirmDialog(props: {
  title: string
  confirm: string
  keep?: 'Cancel' | 'Keep it'
  onConfirm: () => unknown
  onCancel: () => void
  children: ComponentChildren
}) {
  return (
    <Dialog title={props.title} onCancel={props.onCancel}>
      {props.children}
      <div class="buttons">
        <button type="button" class="danger" onClick={() => void props.onConfirm()}>
          {props.confirm}
        </button>
        <button type="button" class="secondary" onClick={props.onCancel} autofocus>
          {props.keep ?? 'Cancel'}
        </button>
      </div>
    </Dialog>
  )
}
