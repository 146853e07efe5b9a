// What the Senders, Blacklist, Balance and Outbox pages share: data loaded from the API (reloaded after each
// change), the status line of the last change done and the API's message of the last one refused.
import { useEffect, useRef, useState } from 'preact/hooks'
import { messageOf } from './dialog.js'

export interface PageState<T> {
  data: T | undefined
  error: string | undefined
  status: string
  reload: () => Promise<void>
  /** Forgets the last refusal (a dialog opened afresh shows only its own). */
  clearError: () => void
  /**
   * Runs a change, then reloads; false when the API refused it (its message is shown, the form keeps its values).
   * `done` is the status line, or makes it from the API's answer (counters of what was added).
   */
  act: <R>(work: () => Promise<R>, done: string | ((answer: R) => string)) => Promise<boolean>
}

export function usePageState<T>(load: () => Promise<T>, deps: unknown[] = []): PageState<T> {
  const [data, setData] = useState<T | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [status, setStatus] = useState('')
  // Only the latest load may show: a slow first load answering after a filtered one must not replace its result.
  const latest = useRef(0)
  const reload = async () => {
    const call = ++latest.current
    try {
      const loaded = await load()
      if (call !== latest.current) return
      setData(loaded)
      setError(undefined)
    } catch (err) {
      if (call === latest.current) setError(messageOf(err))
    }
  }
  useEffect(() => void reload(), deps)
  const act = async <R,>(work: () => Promise<R>, done: string | ((answer: R) => string)) => {
    let answer: R
    try {
      answer = await work()
    } catch (err) {
      setError(messageOf(err))
      return false
    }
    // The data first, then the status line: what the line announces is on the page when it is read.
    setError(undefined)
    await reload()
    setStatus(typeof done === 'string' ? done : done(answer))
    return true
  }
  return { data, error, status, reload, act, clearError: () => setError(undefined) }
}

/** The status line (announced politely) and the refusal (announced at once). */
export function Messages({ state }: { state: { status: string; error: string | undefined } }) {
  return (
    <>
      <p class="status" role="status">
        {state.status}
      </p>
      {state.error && (
        <p class="error" role="alert">
          {state.error}
        </p>
      )}
    </>
  )
}

/** Previous / next buttons over pages of `size`: the next one exists while a page comes back full. */
export function Pager({ offset, size, shown, onOffset }: { offset: number; size: number; shown: number; onOffset: (offset: number) => void }) {
  return (
    <div class="pager">
      <button type="button" class="secondary" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - size))}>
        Previous page
      </button>
      <button type="button" class="secondary" disabled={shown < size} onClick={() => onOffset(offset + size)}>
        Next page
      </button>
    </div>
  )
}

/** The trimmed value of a form's field. */
export function fieldOf(form: HTMLFormElement, name: string): string {
  return String(new FormData(form).get(name) ?? '').trim()
}
