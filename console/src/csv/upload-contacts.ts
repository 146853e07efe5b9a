// Sends the contacts of a CSV file to a list through the public API (POST /addressbooks/{id}/emails), one batch at a
// time, so that progress advances only on the server's answers. The API skips an invalid or blacklisted address and
// names it in `invalid_emails`; any other bad contact (a value that breaks its variable's type) refuses the whole
// call with a 422 before anything is written: the batch is then halved until the refused rows stand alone, each
// reported with the API's message (a bad row costs ~9 more calls in a batch of 500).
import { api, ApiError } from '../api.js'
import type { CsvContact, SkippedRow } from './read-contacts.js'
import { rateLimited } from './rate-limited.js'

/**
 * Contacts per call: ~50 KB of JSON, under the server's 64 KiB threshold for reading on a worker thread, and 2 calls
 * of a 1,000-row file, so the bar moves in visible steps without paying a round trip per handful of rows.
 */
export const UPLOAD_BATCH = 500

export interface UploadProgress {
  /** Rows answered by the server (sent and stored, or skipped). */
  done: number
  total: number
  skipped: SkippedRow[]
}

/** Uploads `contacts`; `onProgress` after each answer. Stops before the next batch once `stopped()` says so. */
export async function uploadContacts(
  listId: number,
  contacts: readonly CsvContact[],
  onProgress: (progress: UploadProgress) => void,
  stopped: () => boolean = () => false,
): Promise<UploadProgress> {
  const progress: UploadProgress = { done: 0, total: contacts.length, skipped: [] }
  for (let start = 0; start < contacts.length && !stopped(); start += UPLOAD_BATCH) {
    const batch = contacts.slice(start, start + UPLOAD_BATCH)
    progress.skipped.push(...(await sendBatch(listId, batch)))
    progress.done += batch.length
    onProgress({ ...progress, skipped: [...progress.skipped] })
  }
  return progress
}

async function sendBatch(listId: number, batch: readonly CsvContact[]): Promise<SkippedRow[]> {
  try {
    const answer = await rateLimited(() =>
      api<{ invalid_emails?: string[] }>('POST', `/addressbooks/${listId}/emails`, { emails: batch.map(({ email, variables }) => ({ email, variables })) }),
    )
    return rowsOfSkipped(batch, answer.invalid_emails ?? [])
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 422)) throw err
    if (batch.length === 1) return [{ line: batch[0]!.line, reason: err.message }]
    const half = Math.ceil(batch.length / 2)
    return [...(await sendBatch(listId, batch.slice(0, half))), ...(await sendBatch(listId, batch.slice(half)))]
  }
}

/**
 * The rows the API's reasons are about. They come in the batch's order, each naming its address as sent, quoted
 * (`"x" is not a valid email address`), or as stored (`x is on the blacklist`); a reason that no row matches is
 * still reported, without a line.
 */
export function rowsOfSkipped(batch: readonly CsvContact[], reasons: readonly string[]): SkippedRow[] {
  const taken = new Set<number>()
  const skipped = reasons.map((reason) => {
    const lowered = reason.toLowerCase()
    const index = batch.findIndex(
      (row, i) => !taken.has(i) && (reason.includes(`"${row.email}"`) || lowered === `${row.email.trim().toLowerCase()} is on the blacklist`),
    )
    if (index < 0) return { reason }
    taken.add(index)
    return { line: batch[index]!.line, reason }
  })
  return skipped.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity))
}
