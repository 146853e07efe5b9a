// The per-account request limit in front of every route behind the bearer check (services/accounts/request-limit.ts):
// over it, 429 with Retry-After and SendPulse's error body. The token call is not behind it: COMPAT.md requires that
// call to succeed with the right credentials whenever the server is up (PHP 1.x/2.x clients stay broken until
// restarted after one refusal, and a JSON 429 there kills the npm SDK's process), so it is neither counted nor
// refused here; its failed attempts have their own throttle per client_id and network (lib/login-throttle.ts), which
// answers 401 invalid_client with Retry-After. Public routes (links in emails, /healthz, /metrics) are not behind it.
import type { FastifyInstance } from 'fastify'
import { RequestLimiter } from '../services/accounts/request-limit.js'
import { AppError } from '../services/errors.js'
import type { Deps } from '../services/types.js'

/** Registers the limit on `app`, after registerBearerCheck (it reads request.accountId); TIDINGS_API_RATE=0: none. */
export function registerRequestLimit(app: FastifyInstance, deps: Deps): void {
  if (deps.config.apiRatePerSecond === 0) return
  const limiter = new RequestLimiter(deps, deps.config.apiRatePerSecond, deps.config.apiBurst)
  const answer = (waitSeconds: number) => (waitSeconds === 0 ? undefined : tooManyRequests(waitSeconds))
  app.addHook('onRequest', (request, _reply, done) => {
    // No route (a 404 answered next) or no account: nothing to count.
    if (request.accountId === 0) return done()
    const wait = limiter.admit(request.accountId)
    if (typeof wait === 'number') return done(answer(wait))
    wait.then((seconds) => done(answer(seconds)), done)
  })
}

function tooManyRequests(waitSeconds: number): AppError {
  return new AppError('too_many_requests', 'Too many requests', { headers: { 'retry-after': String(Math.max(1, waitSeconds)) } })
}
