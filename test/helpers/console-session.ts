// Signing in to the web console through its route (POST /console/session), as the console's own page does.
import type { LightMyRequestResponse } from 'fastify'
import type { TestApp } from './app.js'

export interface ConsoleSession {
  /** The Cookie header the browser would send back. */
  cookie: string
  csrfToken: string
  /** The raw Set-Cookie of the sign-in. */
  setCookie: string
}

type Credential = { client_id: string; client_secret: string } | { api_key: string }

export function consoleSignIn(t: TestApp, credential: Credential, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'POST', url: '/console/session', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(credential) })
}

export async function openConsoleSession(t: TestApp, credential: Credential): Promise<ConsoleSession> {
  const answer = await consoleSignIn(t, credential)
  if (answer.statusCode !== 200) throw new Error(`console sign-in failed: ${answer.statusCode} ${answer.body}`)
  const setCookie = String(answer.headers['set-cookie'])
  return { cookie: setCookie.split(';')[0]!, csrfToken: answer.json<{ csrf_token: string }>().csrf_token, setCookie }
}

/** An API call as the console makes it: the session cookie and, unless told otherwise, its CSRF token. */
export function consoleCall(
  t: TestApp,
  session: ConsoleSession,
  options: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; payload?: unknown; csrfToken?: string | null; headers?: Record<string, string> },
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { cookie: session.cookie, ...options.headers }
  const csrf = options.csrfToken === undefined ? session.csrfToken : options.csrfToken
  if (csrf !== null) headers['x-csrf-token'] = csrf
  return t.app.inject({ method: options.method, url: options.url, headers, ...(options.payload === undefined ? {} : { payload: options.payload as object }) })
}
