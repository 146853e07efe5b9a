// The only place that knows both AppError codes and HTTP: every error becomes a 4xx (a 503 while the database
// cannot answer; for bugs, a 500) with SendPulse's JSON body `{error_code, message}` — never HTML, never empty
// (COMPAT.md).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, type ErrorCode } from '../services/errors.js'
import { isDatabaseUnavailable } from '../storage/db.js'

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  invalid: 422,
  unauthorized: 401,
  invalid_client: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 422,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  too_many_requests: 429,
  unavailable: 503,
}

/** How long a client should wait before trying again while the database is away: one connect timeout. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = '5'

/** The one body the token call answers for bad credentials (COMPAT.md: the npm SDK stops asking on it). */
export const INVALID_CLIENT_BODY = Object.freeze({
  error: 'invalid_client',
  error_description: 'Client authentication failed.',
  message: 'Client authentication failed.',
  error_code: 1,
})

/** Fastify's own errors for unreadable requests, by their code. */
const FASTIFY_ERRORS: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'bad_request',
  FST_ERR_CTP_INVALID_JSON_BODY: 'bad_request',
  FST_ERR_BAD_URL: 'bad_request',
  FST_ERR_MAX_PARAM_LENGTH: 'uri_too_long',
}

export function toAppError(err: FastifyError | AppError | Error): AppError | undefined {
  if (err instanceof AppError) return err
  const code = (err as FastifyError).code
  const mapped = code ? FASTIFY_ERRORS[code] : undefined
  if (mapped) return new AppError(mapped, err.message, { cause: err })
  if (isDatabaseUnavailable(err)) {
    return new AppError('unavailable', 'Service temporarily unavailable, try again later', { cause: err, headers: { 'retry-after': UNAVAILABLE_RETRY_AFTER_SECONDS } })
  }
  const status = (err as FastifyError).statusCode
  if (status !== undefined && status >= 400 && status < 500) return new AppError('bad_request', err.message, { cause: err })
  return undefined
}

export function statusOf(error: AppError): number {
  return STATUS[error.code]
}

export function errorBody(error: AppError): Record<string, unknown> {
  if (error.code === 'invalid_client') return INVALID_CLIENT_BODY
  return { error_code: error.publishedCode ?? statusOf(error), message: error.message }
}

/** Errors Fastify raises before routing (a malformed URL): answered in the same JSON shape. */
export function answerFrameworkError(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const known = toAppError(err) ?? new AppError('bad_request', 'Bad request', { cause: err })
  void reply.status(statusOf(known)).send(errorBody(known))
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = toAppError(err)
    if (!known) {
      request.log.error({ err }, 'unhandled error')
      return reply.status(500).send({ error_code: 500, message: 'Internal server error' })
    }
    if (statusOf(known) >= 500) request.log.error({ err }, 'request failed')
    if (request.routeOptions.config.tokenCall) {
      // The token call answers only a token, invalid_client or a non-JSON body: any other JSON error would crash
      // the npm SDK, and invalid_client for a database outage would tell clients their credentials are wrong.
      if (known.code === 'unavailable') return reply.status(503).headers(known.headers).type('text/plain').send(known.message)
      if (known.code !== 'invalid_client') return sendError(reply, new AppError('invalid_client', 'Client authentication failed.', { cause: known }))
    }
    return sendError(reply, known)
  })
}

function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  return reply.status(statusOf(error)).headers(error.headers).send(errorBody(error))
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The OAuth token route: every failure answers 401 invalid_client. */
    tokenCall?: boolean
    /** Routes reachable without a bearer token. */
    public?: boolean
    /** A GET the console loads in a frame: its session cookie is enough, without the CSRF header (api/auth.ts). */
    framedByConsole?: boolean
  }
}
