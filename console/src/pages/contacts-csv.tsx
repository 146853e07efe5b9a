// CSV import and export of a list's contacts (issue 21 item 3). Import: the file is read and checked in the browser
// (csv/read-contacts.ts, loaded when a file is chosen), then sent through the public API in batches whose answers move
// the progress bar (csv/upload-contacts.ts); the rows skipped are listed with their line and reason. Export: every
// contact, paged through the API (100 a call, keyset under the hood), written as CSV and handed to the browser as a
// download of a Blob (a download is no fetch nor navigation the CSP governs: the CSP is unchanged).
import { useRef, useState } from 'preact/hooks'
import { api } from '../api.js'
import { Dialog, messageOf } from '../parts/dialog.js'
import type { SkippedRow } from '../csv/read-contacts.js'
import type { UploadProgress } from '../csv/upload-contacts.js'
import { contactsCsv, type ExportedContact } from '../csv/write-contacts.js'
import { rateLimited } from '../csv/rate-limited.js'

/** The API's largest page. */
const EXPORT_PAGE = 100

type Step =
  | { kind: 'choose'; problem?: string }
  | { kind: 'sending'; progress: UploadProgress }
  | { kind: 'done'; progress: UploadProgress; rows: number; stoppedBy?: string }

export function ImportDialog({ listId, onClose }: { listId: number; onClose: () => void }) {
  const [step, setStep] = useState<Step>({ kind: 'choose' })
  const closed = useRef(false)
  const close = () => {
    closed.current = true
    onClose()
  }

  const start = async (event: Event) => {
    event.preventDefault()
    const file = new FormData(event.currentTarget as HTMLFormElement).get('file')
    if (!(file instanceof File) || file.size === 0) return setStep({ kind: 'choose', problem: 'Choose a CSV file that is not empty.' })
    const [{ readContactsCsv, CsvProblem }, { uploadContacts }] = await Promise.all([import('../csv/read-contacts.js'), import('../csv/upload-contacts.js')])
    let csv
    try {
      csv = readContactsCsv(await file.text())
    } catch (err) {
      return setStep({ kind: 'choose', problem: err instanceof CsvProblem ? err.message : String(err) })
    }
    /** Data rows of the file: those sent and those refused before sending. */
    const rows = csv.contacts.length + csv.skipped.length
    let progress: UploadProgress = { done: 0, total: csv.contacts.length, skipped: csv.skipped }
    setStep({ kind: 'sending', progress })
    try {
      progress = await uploadContacts(
        listId,
        csv.contacts,
        (sent) => {
          progress = { ...sent, skipped: bySkippedLine([...csv.skipped, ...sent.skipped]) }
          setStep({ kind: 'sending', progress })
        },
        () => closed.current,
      )
      setStep({ kind: 'done', progress: { ...progress, skipped: bySkippedLine([...csv.skipped, ...progress.skipped]) }, rows })
    } catch (err) {
      setStep({ kind: 'done', progress, rows, stoppedBy: messageOf(err) })
    }
  }

  const percent = (progress: UploadProgress) => (progress.total === 0 ? 100 : Math.floor((progress.done * 100) / progress.total))
  return (
    <Dialog title="Import contacts from CSV" onCancel={close}>
      <p class="muted">
        The first line names the columns. The column called <strong>email</strong> (in any case) holds the addresses; every other column becomes a
        variable of that name. Contacts already in the list get their variables updated. A file exported here reads back as it was: its{' '}
        <strong>status</strong> column is not a variable, and its rows of contacts who are not Active or New are skipped.
      </p>
      {step.kind === 'choose' && (
        <form onSubmit={start}>
          <div class="field">
            <label for="import-file">CSV file</label>
            <input id="import-file" name="file" type="file" accept=".csv,text/csv" required aria-describedby={step.problem ? 'import-problem' : undefined} />
          </div>
          {step.problem && (
            <p id="import-problem" class="error" role="alert">
              {step.problem}
            </p>
          )}
          <div class="buttons">
            <button type="submit">Import</button>
            <button type="button" class="secondary" onClick={close}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {step.kind !== 'choose' && (
        <>
          <label for="import-progress">Import progress</label>
          <progress id="import-progress" class="import-progress" max={100} value={percent(step.progress)} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent(step.progress)} />
          <p role="status">
            {step.kind === 'sending'
              ? `${step.progress.done.toLocaleString('en')} of ${step.progress.total.toLocaleString('en')} rows sent (${percent(step.progress)} %).`
              : step.stoppedBy
                ? `Stopped after ${step.progress.done.toLocaleString('en')} of ${step.progress.total.toLocaleString('en')} rows: ${step.stoppedBy}`
                : `Done: ${step.rows.toLocaleString('en')} rows read, ${step.progress.skipped.length.toLocaleString('en')} skipped, ${(step.rows - step.progress.skipped.length).toLocaleString('en')} added or updated.`}
          </p>
          {step.kind === 'done' && step.progress.skipped.length > 0 && <SkippedRows rows={step.progress.skipped} />}
          <div class="buttons">
            <button type="button" class="secondary" onClick={close}>
              {step.kind === 'sending' ? 'Stop and close' : 'Close'}
            </button>
          </div>
        </>
      )}
    </Dialog>
  )
}

function bySkippedLine(rows: SkippedRow[]): SkippedRow[] {
  return rows.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity))
}

function SkippedRows({ rows }: { rows: SkippedRow[] }) {
  return (
    <div class="skipped-rows">
      <h3 id="skipped-title">Skipped rows</h3>
      {/* Scrolls when long: focusable, so that a keyboard can scroll it. */}
      <ul aria-labelledby="skipped-title" tabIndex={0}>
        {rows.map((row, i) => (
          <li key={i}>
            {row.line === undefined ? '' : `Line ${row.line}: `}
            {row.reason}
          </li>
        ))}
      </ul>
    </div>
  )
}

/** "Export CSV": every contact of the list into a file the browser downloads. */
export function ExportButton({ listId, listName }: { listId: number; listName: string }) {
  const [state, setState] = useState<{ busy: boolean; note: string }>({ busy: false, note: '' })
  const run = async () => {
    setState({ busy: true, note: 'Reading contacts…' })
    try {
      const contacts: ExportedContact[] = []
      for (;;) {
        const page = await rateLimited(() => api<ExportedContact[]>('GET', `/addressbooks/${listId}/emails?limit=${EXPORT_PAGE}&offset=${contacts.length}`))
        contacts.push(...page)
        setState({ busy: true, note: `${contacts.length.toLocaleString('en')} contacts read…` })
        if (page.length < EXPORT_PAGE) break
      }
      download(contactsCsv(contacts), `${listName.replace(/[^\p{L}\p{N}._-]+/gu, '-') || 'list'}-contacts.csv`)
      setState({ busy: false, note: `${contacts.length.toLocaleString('en')} contacts exported.` })
    } catch (err) {
      setState({ busy: false, note: `Export failed: ${messageOf(err)}` })
    }
  }
  return (
    <>
      <button type="button" class="secondary" disabled={state.busy} onClick={run}>
        Export CSV
      </button>
      <span class="muted" role="status">
        {state.note}
      </span>
    </>
  )
}

function download(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }))
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.click()
  // Freed later, not at once: Chromium reads the Blob after the click's task, and a 1,000,000-contact file is ~50 MB.
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
}
