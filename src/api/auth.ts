// POST /oauth/access_token and the bearer check in front of every API route (COMPAT.md, Authentication).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { LoginThrottle } from '../lib/login-throttle.js'
import { AppError } from '../services/errors.js'
import * as auth from '../services/accounts/auth.js'
import { TokenCache } from '../services/accounts/token-cache.js'
import type { Deps } from '../services/types.js'
import { INVALID_CLIENT_BODY } from './errors.js'
import * as consoleSessions from '../services/accounts/console-sessions.js'
import { sessionCookie } from './console/session-cookie.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated account; set by the bearer check on every non-public route. */
    accountId: number
  }
}

/**
 * Ours are 32 characters each (services/accounts/accounts.ts); 256 leaves room to spare. A longer one is refused before
 * the database look-up and the ~45 ms scrypt check (services/accounts/auth.ts).
 */
const MAX_CREDENTIAL_LENGTH = 256

const TokenRequest = Type.Object({
  grant_type: Type.Optional(Type.String({ maxLength: MAX_CREDENTIAL_LENGTH })),
  client_id: Type.String({ maxLength: MAX_CREDENTIAL_LENGTH }),
  client_secret: Type.String({ maxLength: MAX_CREDENTIAL_LENGTH }),
})

const TokenAnswer = Type.Object({
  access_token: Type.String(),
  token_type: Type.String(),
  expires_in: Type.Integer(),
})

const InvalidClient = Type.Object({
  error: Type.Literal(INVALID_CLIENT_BODY.error),
  error_description: Type.String(),
  message: Type.String(),
  error_code: Type.Integer(),
})

/** One per server: the token call and the console's sign-in count failed guesses together. */
export function createLoginThrottle(deps: Deps): LoginThrottle {
  return new LoginThrottle(
    {
      maxFailures: deps.config.loginMaxFailures,
      maxFailuresPerIp: deps.config.loginMaxFailuresPerIp,
      windowMs: deps.config.loginWindowSeconds * 1000,
    },
    deps.now,
  )
}

export function registerTokenRoute(app: FastifyInstance, deps: Deps, throttle: LoginThrottle): void {
  app.post(
    '/oauth/access_token',
    {
      config: { public: true, tokenCall: true },
      attachValidation: true,
      schema: {
        summary: 'Exchange client credentials for a bearer token (OAuth 2.0 client_credentials)',
        tags: ['Authentication'],
        security: [],
        body: TokenRequest,
        response: { 200: TokenAnswer, 401: InvalidClient },
      },
    },
    async (request, reply) => {
      const { client_id: clientId = '', client_secret: secret = '', grant_type: grant } = (request.body ?? {}) as Record<string, unknown>
      const ip = request.ip
      // A malformed client_id (too long, not a string) is counted under '' so the throttle keeps no copy of it.
      const key = request.validationError ? '' : String(clientId)
      const wait = throttle.retryAfterSeconds(key, ip)
      if (wait > 0) {
        throw new AppError('invalid_client', 'Client authentication failed.', { headers: { 'Retry-After': String(wait) } })
      }
      try {
        if (request.validationError || (grant !== undefined && grant !== 'client_credentials')) {
          throw new AppError('invalid_client', 'Client authentication failed.')
        }
        const answer = await auth.issueToken(deps, key, String(secret))
        throttle.recordSuccess(key, ip)
        return reply.send(answer)
      } catch (err) {
        // A refusal for lack of capacity says nothing about the secret: it is not a failed guess.
        const failedGuess = err instanceof AppError && err.code === 'invalid_client' && !(err instanceof auth.SecretChecksBusy)
        if (failedGuess) throttle.recordFailure(key, ip)
        throw err
      }
    },
  )
}

const BEARER = /^Bearer\s+(\S+)\s*$/i

/** The header that carries a console session's CSRF token (services/accounts/console-sessions.ts). */
export const CSRF_HEADER = 'x-csrf-token'

/**
 * Resolves the bearer credential of every route registered on `app`; anything not valid is a cheap 401. A
 * credential this process knows is answered at once, without a promise: this hook runs on every API call.
 * Without an Authorization header, a web console session's cookie is accepted together with its CSRF token
 * header, on every method: the cookie alone, which the browser attaches by itself, never authenticates, but on a GET
 * route marked `framedByConsole` (the page an <iframe src> of the console loads, which can send no header): such a
 * route changes nothing, its answer may be framed by the console's origin alone (frame-ancestors 'self') and read by
 * no other (no CORS, Cross-Origin-Resource-Policy: same-origin), and the cookie (SameSite=Strict) leaves no other site.
 */
export function registerBearerCheck(app: FastifyInstance, deps: Deps): void {
  const tokens = new TokenCache()
  const cookie = sessionCookie(deps.config)
  app.decorateRequest('accountId', 0)
  // Public routes are registered outside (server.ts): saying so here spares every call a look at its route's
  // options (request.routeOptions builds a new object on each read).
  app.addHook('onRoute', (route) => {
    if (route.config?.public) throw new Error(`public route ${route.url} registered behind the bearer check`)
  })
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    if (request.is404) return done()
    const accept = (accountId: number | undefined) => {
      if (accountId === undefined) return done(unauthorized())
      request.accountId = accountId
      done()
    }
    const authorization = request.headers.authorization
    const sessionId = authorization === undefined ? cookie.read(request.headers.cookie) : undefined
    if (sessionId !== undefined) {
      const csrfToken = request.headers[CSRF_HEADER]
      const framed = csrfToken === undefined && request.method === 'GET' && request.routeOptions.config.framedByConsole === true
      if (!framed && (typeof csrfToken !== 'string' || !consoleSessions.csrfTokenMatches(sessionId, csrfToken))) return done(csrfRefused())
      return void consoleSessions.findSession(deps, sessionId).then((session) => accept(session?.accountId), done)
    }
    const credential = BEARER.exec(authorization ?? '')?.[1]
    if (!credential) return done(unauthorized())
    const account = auth.resolveBearer(deps, tokens, credential)
    if (typeof account === 'number') accept(account)
    else account.then(accept, done)
  })
}

export function csrfRefused(): AppError {
  return new AppError('forbidden', 'A console session needs its CSRF token in the X-CSRF-Token header')
}

export function unauthorized(): AppError {
  // Not "invalid_client": on that value the npm SDK gives up instead of fetching a new token.
  return new AppError('unauthorized', 'Invalid, expired or missing access token', {
    headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
  })
}
