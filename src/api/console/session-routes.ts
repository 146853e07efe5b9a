// The web console's own routes, which the SendPulse API lacks: sign in, read the session (its CSRF token), sign out
// (services/accounts/console-sessions.ts). Documented in /openapi.json under the "Console" tag with `x-tidings-console`.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { LoginThrottle } from '../../lib/login-throttle.js'
import { AppError } from '../../services/errors.js'
import * as consoleSessions from '../../services/accounts/console-sessions.js'
import type { Deps } from '../../services/types.js'
import { CSRF_HEADER } from '../auth.js'
import { ErrorBody } from '../schemas/common.js'
import { setConsoleHeaders } from './headers.js'
import { sessionCookie } from './session-cookie.js'

/** As the token call's (api/auth.ts): ours are 32 characters, API keys 47. */
const MAX_CREDENTIAL_LENGTH = 256

const SignInBody = Type.Object(
  {
    client_id: Type.Optional(Type.String({ maxLength: MAX_CREDENTIAL_LENGTH })),
    client_secret: Type.Optional(Type.String({ maxLength: MAX_CREDENTIAL_LENGTH })),
    api_key: Type.Optional(Type.String({ maxLength: MAX_CREDENTIAL_LENGTH })),
  },
  { description: 'Either client_id and client_secret, or api_key' },
)

const SessionAnswer = Type.Object({
  csrf_token: Type.String({ description: `Send it in the ${CSRF_HEADER} header of every API call made with the session cookie` }),
  account_name: Type.String(),
  expires_at: Type.Integer({ description: 'The absolute expiry, epoch milliseconds (the idle expiry may come first)' }),
})

const extension = { 'x-tidings-console': true, tags: ['Console'], security: [] }
const EXTENSION_NOTE = 'A Tidings extension for the web console at /console; SendPulse has no such route.'

export function consoleSessionRoutes(deps: Deps, throttle: LoginThrottle) {
  const cookie = sessionCookie(deps.config)
  const https = new URL(deps.config.publicUrl).protocol === 'https:'

  return async (app: FastifyInstance) => {
    app.addHook('onRequest', (_request, reply, done) => {
      setConsoleHeaders(reply, https)
      reply.header('cache-control', 'no-store')
      done()
    })

    app.post(
      '/console/session',
      {
        config: { public: true },
        attachValidation: true,
        schema: {
          ...extension,
          summary: 'Console: sign in (sets the HttpOnly session cookie, returns its CSRF token)',
          description: `${EXTENSION_NOTE} Wrong credentials: 401 whichever part is wrong. Failed attempts count against the same throttle as POST /oauth/access_token (then 401 with Retry-After, even for the right credentials). JSON bodies only, from the console's own origin.`,
          body: SignInBody,
          response: { 200: SessionAnswer, 401: ErrorBody, 403: ErrorBody },
        },
      },
      async (request, reply) => {
        refuseCrossSite(request)
        const body = (request.body ?? {}) as Record<string, unknown>
        const apiKey = typeof body.api_key === 'string' && body.api_key !== '' ? body.api_key : undefined
        const clientId = typeof body.client_id === 'string' ? body.client_id : ''
        // A malformed body is counted under '' so the throttle keeps no copy of it, as the token call does.
        const key = request.validationError || apiKey !== undefined ? '' : clientId
        const wait = throttle.retryAfterSeconds(key, request.ip)
        if (wait > 0) throw new consoleSessions.SignInRefused(wait)
        try {
          if (request.validationError) throw new consoleSessions.SignInRefused()
          const credential = apiKey !== undefined ? { apiKey } : { clientId, clientSecret: typeof body.client_secret === 'string' ? body.client_secret : '' }
          const session = await consoleSessions.signIn(deps, credential)
          throttle.recordSuccess(key, request.ip)
          reply.header('set-cookie', cookie.set(session.sessionId))
          return { csrf_token: session.csrfToken, account_name: await consoleSessions.accountName(deps, session.accountId), expires_at: session.expiresAt }
        } catch (err) {
          if (err instanceof consoleSessions.SignInRefused) throttle.recordFailure(key, request.ip)
          throw err
        }
      },
    )

    app.get(
      '/console/session',
      {
        config: { public: true },
        schema: {
          ...extension,
          summary: "Console: the signed-in session and its CSRF token (the console's pages read it after a reload)",
          description: `${EXTENSION_NOTE} Authenticated by the session cookie alone: it only reads, and no other origin can read its answer.`,
          response: { 200: SessionAnswer, 401: ErrorBody },
        },
      },
      async (request) => {
        const sessionId = cookie.read(request.headers.cookie)
        const session = sessionId === undefined ? undefined : await consoleSessions.findSession(deps, sessionId)
        if (sessionId === undefined || !session) throw new AppError('unauthorized', 'Not signed in')
        return { csrf_token: consoleSessions.csrfTokenOf(sessionId), account_name: await consoleSessions.accountName(deps, session.accountId), expires_at: session.expiresAt }
      },
    )

    app.delete(
      '/console/session',
      {
        config: { public: true },
        schema: {
          ...extension,
          summary: 'Console: sign out (the session ends at once; its cookie no longer works anywhere)',
          description: `${EXTENSION_NOTE} Needs the session cookie and its ${CSRF_HEADER} header.`,
          response: { 200: Type.Object({ result: Type.Boolean() }), 401: ErrorBody, 403: ErrorBody },
        },
      },
      async (request, reply) => {
        const sessionId = cookie.read(request.headers.cookie)
        if (sessionId === undefined) throw new AppError('unauthorized', 'Not signed in')
        const csrfToken = request.headers[CSRF_HEADER]
        if (typeof csrfToken !== 'string' || !consoleSessions.csrfTokenMatches(sessionId, csrfToken)) {
          throw new AppError('forbidden', `A console session needs its CSRF token in the X-CSRF-Token header`)
        }
        await consoleSessions.signOut(deps, sessionId)
        reply.header('set-cookie', cookie.clear())
        return { result: true }
      },
    )
  }
}

/**
 * Sign-in only from the console's own pages: a JSON body (an HTML form on another site cannot send one without a
 * CORS preflight, which we never grant) and no sign of another origin. This stops "login CSRF", where another site
 * signs the browser in as the attacker's account.
 */
function refuseCrossSite(request: FastifyRequest): void {
  const type = request.headers['content-type'] ?? ''
  const site = request.headers['sec-fetch-site']
  const origin = request.headers.origin
  const foreignOrigin = origin !== undefined && !sameHost(origin, request.host)
  if (!/^application\/json\b/i.test(type) || (site !== undefined && site !== 'same-origin' && site !== 'none') || foreignOrigin) {
    throw new AppError('forbidden', 'Sign in from the console page itself')
  }
}

/**
 * Whether the Origin names this server's host. Hosts only, with the origin's own scheme for both (default ports
 * dropped): behind a proxy that ends TLS this server sees http while the page's origin is https. `null` never matches.
 */
function sameHost(origin: string, host: string): boolean {
  try {
    const given = new URL(origin)
    return given.origin !== 'null' && given.host === new URL(`${given.protocol}//${host}`).host
  } catch {
    return false
  }
}
