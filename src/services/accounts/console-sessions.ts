// Web console sessions: signing in with the account's client credentials or one of its API keys opens a session
// kept in the database (migration 0019); the browser holds only its random id, in an HttpOnly cookie. The cookie
// alone never authenticates: every request must also carry the session's CSRF token, which only a page of the
// console's own origin can read (GET /console/session). Signing out deletes the row, so the cookie stops working at
// once; the account's revocations (rotate-secret, revoke-tokens, disable, delete) and revoking the API key signed
// in with end it too (storage/repos/console-sessions.ts findLiveConsoleSession).
import { timingSafeEqual } from 'node:crypto'
import * as accountsRepo from '../../storage/repos/accounts.js'
import * as credentialsRepo from '../../storage/repos/credentials.js'
import * as sessionsRepo from '../../storage/repos/console-sessions.js'
import { digestToken, randomSecret } from '../../lib/secrets.js'
import { AppError } from '../errors.js'
import { SecretChecksBusy, verifyClientCredentials } from './auth.js'
import type { Deps } from '../types.js'

/** The last activity is written at most this often: one UPDATE a minute per busy session, not one per request. */
export const TOUCH_INTERVAL_MS = 60_000
/** Sessions an account keeps open at once (browsers, tabs after a reload share one); a new sign-in ends the oldest. */
export const MAX_SESSIONS_PER_ACCOUNT = 20

export type ConsoleCredential = { clientId: string; clientSecret: string } | { apiKey: string }

export interface OpenedSession {
  /** The cookie's value: 256 random bits, shown to the browser once and stored only as a digest. */
  sessionId: string
  csrfToken: string
  accountId: number
  expiresAt: number
}

export interface LiveSession {
  accountId: number
  expiresAt: number
}

/**
 * Opens a session for valid credentials; throws SignInRefused otherwise, or a 503 when too many secret checks are
 * running (services/accounts/auth.ts SecretChecksBusy: not a failed guess, so not counted by the throttle).
 */
export async function signIn(deps: Deps, credential: ConsoleCredential): Promise<OpenedSession> {
  const owner = 'apiKey' in credential ? await apiKeyOwner(deps, credential.apiKey) : await clientOwner(deps, credential)
  const sessionId = randomSecret(32)
  const now = deps.now()
  const expiresAt = now + deps.config.consoleSessionSeconds * 1000
  await deps.db.transaction().execute(async (tx) => {
    await sessionsRepo.insertConsoleSession(tx, { sessionHash: digestToken(sessionId), ...owner, now, expiresAt })
    await sessionsRepo.keepNewestConsoleSessions(tx, owner.accountId, MAX_SESSIONS_PER_ACCOUNT)
  })
  return { sessionId, csrfToken: csrfTokenOf(sessionId), accountId: owner.accountId, expiresAt }
}

/**
 * Wrong credentials, whichever part: 401 with SendPulse's error body. Not the token call's `invalid_client` body,
 * which only that call answers (SDKs act on it; test/helpers/api-answer-rules.ts).
 */
export class SignInRefused extends AppError {
  constructor(retryAfterSeconds?: number) {
    super('unauthorized', 'Client authentication failed.', retryAfterSeconds === undefined ? {} : { headers: { 'Retry-After': String(retryAfterSeconds) } })
  }
}

async function clientOwner(deps: Deps, credential: { clientId: string; clientSecret: string }) {
  const account = await verifyClientCredentials(deps, credential.clientId, credential.clientSecret).catch((err: unknown) => {
    if (err instanceof SecretChecksBusy) throw new AppError('unavailable', 'Too many sign-ins at once: try again in a second', { headers: { 'Retry-After': '1' } })
    throw err instanceof AppError && err.code === 'invalid_client' ? new SignInRefused() : err
  })
  return { accountId: account.id, apiKeyId: null, credentialsVersion: account.credentialsVersion }
}

async function apiKeyOwner(deps: Deps, apiKey: string) {
  // API keys carry 256 random bits: a digest look-up, no scrypt, and nothing to learn from the time it takes.
  const key = await credentialsRepo.findActiveApiKey(deps.db, digestToken(apiKey))
  if (!key) throw new SignInRefused()
  return { accountId: key.accountId, apiKeyId: key.id, credentialsVersion: key.credentialsVersion }
}

/**
 * The live session a cookie names, or undefined. Callers check the CSRF token first (csrfTokenMatches), except
 * GET /console/session, which hands the token to the console's own pages.
 */
export async function findSession(deps: Deps, sessionId: string): Promise<LiveSession | undefined> {
  const now = deps.now()
  const sessionHash = digestToken(sessionId)
  const found = await sessionsRepo.findLiveConsoleSession(deps.db, sessionHash, now, idleSince(deps, now))
  if (!found) return undefined
  if (now - found.lastSeenAt >= TOUCH_INTERVAL_MS) await sessionsRepo.touchConsoleSession(deps.db, sessionHash, now)
  return { accountId: found.accountId, expiresAt: found.expiresAt }
}

/** Ends the session at once; false when there was none. */
export async function signOut(deps: Deps, sessionId: string): Promise<boolean> {
  return sessionsRepo.deleteConsoleSession(deps.db, digestToken(sessionId))
}

/** The account's display name for the console's header. */
export async function accountName(deps: Deps, accountId: number): Promise<string> {
  return (await accountsRepo.findAccountById(deps.db, accountId))?.name ?? ''
}

/** Deletes the sessions that expired or went idle; run with the token purge. */
export async function purgeExpiredSessions(deps: Deps): Promise<number> {
  const now = deps.now()
  return sessionsRepo.deleteExpiredConsoleSessions(deps.db, now, idleSince(deps, now))
}

/**
 * The synchronizer token of a session, derived from its id rather than stored: the server recomputes it from the
 * cookie. A digest with its own prefix, so neither it nor the stored digest (of the bare id) reveals the other or the id.
 */
export function csrfTokenOf(sessionId: string): string {
  return digestToken(`console-csrf:${sessionId}`)
}

/** Compared in constant time: the time taken tells nothing about the expected token. */
export function csrfTokenMatches(sessionId: string, given: string): boolean {
  const expected = Buffer.from(csrfTokenOf(sessionId))
  const actual = Buffer.from(given)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

function idleSince(deps: Deps, now: number): number {
  return now - deps.config.consoleIdleSeconds * 1000
}
