// Pieces shared by the pages: the modal dialog and the message of a failed API call.
import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'
import { ApiError } from '../api.js'

/** A modal <dialog>: focus moves into it, Escape closes it, the page behind is inert. */
export function Dialog({ title, onCancel, children }: { title: string; onCancel: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    ref.current?.showModal()
    return () => ref.current?.close()
  }, [])
  return (
    <dialog ref={ref} aria-labelledby="dialog-title" onCancel={onCancel}>
      <h2 id="dialog-title">{title}</h2>
      {children}
    </dialog>
  )
}

export function messageOf(err: unknown): string {
  return err instanceof ApiError ? err.message : 'The server could not be reached.'
}
