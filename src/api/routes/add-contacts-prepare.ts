// What the worker thread does with a JSON body of POST /addressbooks/{id}/emails (add-contacts-body.ts): the
// body read exactly as the server reads every JSON body (strict UTF-8, prototype-safe JSON, bounded depth),
// then its contacts prepared against the list's variable types, so that the main thread only writes them.
import { decodeUtf8, parseJsonText } from '../conventions/parse.js'
import { prepareColumns, type PreparedColumns } from '../../services/audience/contact-input.js'
import { AppError, type ErrorCode } from '../../services/errors.js'

export interface BodyJob {
  body: Uint8Array
  /** The list's variables: name → type. */
  types: [string, string][]
}

export type PreparedBody =
  /** The body cannot be read: the same 4xx the main thread's parser gives. */
  | { kind: 'failed'; code: ErrorCode; message: string }
  /** Not the usual shape (no list of contacts to prepare): the body as parsed, for the usual route. */
  | { kind: 'parsed'; body: unknown }
  /** The body's other fields (null for a bare list of contacts) and its contacts, prepared. */
  | { kind: 'prepared'; rest: Record<string, unknown> | null; columns: PreparedColumns }

export function prepareContactsBody(job: BodyJob): PreparedBody {
  let parsed: unknown
  try {
    parsed = parseJsonBody(Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength))
  } catch (err) {
    if (err instanceof AppError) return { kind: 'failed', code: err.code, message: err.message }
    throw err
  }
  const emails = emailsOf(parsed)
  if (!emails) return { kind: 'parsed', body: parsed }
  const columns = prepareColumns(emails, new Map(job.types))
  // The items stay here: the route reports reasons only.
  columns.rejected = columns.rejected.map((r) => ({ kind: r.kind, reason: r.reason, item: undefined }))
  if (Array.isArray(parsed)) return { kind: 'prepared', rest: null, columns }
  const { emails: _, ...rest } = parsed as Record<string, unknown>
  return { kind: 'prepared', rest, columns }
}

/** A JSON body as the server's parser reads it (conventions/body-parsers.ts): an empty one is no body. */
export function parseJsonBody(body: Buffer): unknown {
  const text = decodeUtf8(body)
  return text.trim() === '' ? undefined : parseJsonText(text)
}

/** The contacts of a body: its `emails` list, or the body itself when it is a bare list (COMPAT.md 11); none when empty. */
export function emailsOf(body: unknown): unknown[] | undefined {
  const list = Array.isArray(body) ? body : typeof body === 'object' && body !== null ? (body as { emails?: unknown }).emails : undefined
  return Array.isArray(list) && list.length > 0 ? list : undefined
}
