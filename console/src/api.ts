// The console's one door to the server: the same public API as the SDKs, authenticated by the HttpOnly session
// cookie (the browser attaches it; no script can read it) plus the session's CSRF token, which lives only in this
// module's memory: gone when the tab closes, read again from GET /console/session after a reload.

/** SendPulse's error body, `{error_code, message}` (the token call's adds `error`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message)
  }
}

export interface Session {
  accountName: string
  expiresAt: number
}

export type Credentials = { clientId: string; clientSecret: string } | { apiKey: string }

let csrfToken: string | undefined
let onSignedOut: () => void = () => {}

/** Called when the server says the session ended (signed out elsewhere, expired, revoked). */
export function whenSignedOut(listener: () => void): void {
  onSignedOut = listener
}

interface SessionAnswer {
  csrf_token: string
  account_name: string
  expires_at: number
}

function remember(answer: SessionAnswer): Session {
  csrfToken = answer.csrf_token
  return { accountName: answer.account_name, expiresAt: answer.expires_at }
}

/** The session's CSRF token, for a form the console posts into a frame (a navigation sends no X-CSRF-Token header). */
export function currentCsrfToken(): string {
  return csrfToken ?? ''
}

/** The session the cookie names, or undefined when not signed in. */
export async function readSession(): Promise<Session | undefined> {
  const response = await fetch('/console/session', { credentials: 'same-origin', cache: 'no-store' })
  if (response.status === 401) return undefined
  return remember(await answerOf<SessionAnswer>(response))
}

export async function signIn(credentials: Credentials): Promise<Session> {
  const body = 'apiKey' in credentials ? { api_key: credentials.apiKey } : { client_id: credentials.clientId, client_secret: credentials.clientSecret }
  const response = await fetch('/console/session', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return remember(await answerOf<SessionAnswer>(response))
}

export async function signOut(): Promise<void> {
  const response = await fetch('/console/session', { method: 'DELETE', credentials: 'same-origin', headers: csrfHeader() })
  csrfToken = undefined
  // Already ended on the server (401): signed out all the same.
  if (!response.ok && response.status !== 401) await answerOf(response)
}

/** Calls a public API route as the signed-in account. */
export async function api<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = csrfHeader()
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (response.status === 401) {
    csrfToken = undefined
    onSignedOut()
  }
  return answerOf<T>(response)
}

function csrfHeader(): Record<string, string> {
  return csrfToken === undefined ? {} : { 'x-csrf-token': csrfToken }
}

async function answerOf<T>(response: Response): Promise<T> {
  const text = await response.text()
  const parsed = text === '' ? undefined : (JSON.parse(text) as unknown)
  if (response.ok) return parsed as T
  const message = typeof parsed === 'object' && parsed !== null && 'message' in parsed ? String(parsed.message) : `HTTP ${response.status}`
  const retryAfter = Number(response.headers.get('retry-after') ?? '')
  throw new ApiError(response.status, message, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined)
}
