// One place where a request's parameters are gathered and normalised before validation, for every route.
// SendPulse reads query and body as one bag of arguments: the npm SDK sends GET parameters only as a JSON
// body, Python and Go only in the query string, PHP 1.x forms with index keys. So GET routes declare a
// `querystring` schema and their body is merged into it; routes with a body declare a `body` schema and
// their query parameters are merged into it.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../../services/errors.js'
import { isIndexKeyed } from '../../lib/index-keyed.js'
import { normalize, type JsonSchema } from './normalize.js'
import { QUERY_ERROR } from './query.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body field a bare JSON array (or an index-keyed form) stands for, e.g. `emails` (COMPAT.md 11). */
    bareArrayField?: string
  }
}

export function registerInputNormalization(app: FastifyInstance): void {
  // Hooks that call done() rather than async ones: they run on every request, and a promise per hook cost
  // ~1 µs each (docs/benchmarks.md, "API").
  // Before the body is read: a query string that cannot be read needs no body.
  app.addHook('onRequest', (request, _reply, done) => {
    const error = (request.query as Record<symbol, unknown> | undefined)?.[QUERY_ERROR]
    done(error ? (error as Error) : undefined)
  })
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      normalizeInput(request)
    } catch (err) {
      return done(err as Error)
    }
    done()
  })
}

function normalizeInput(request: FastifyRequest): void {
  const query = request.query as Record<string, unknown> | undefined
  const schema = (request.routeOptions.schema ?? {}) as Record<string, JsonSchema | undefined>
  const body = bodyAsObject(request)
  if (schema.params) request.params = normalize(schema.params, request.params)
  if (schema.body) {
    request.body = normalize(schema.body, { ...plain(query), ...body }) ?? {}
  } else if (schema.querystring) {
    request.query = normalize(schema.querystring, { ...body, ...plain(query) }) ?? {}
  }
}

/** The body as an object of arguments: `[]` and no body mean none; a bare list fills `bareArrayField`. */
function bodyAsObject(request: FastifyRequest): Record<string, unknown> {
  const body: unknown = request.body
  if (body === undefined || body === null) return {}
  const field = request.routeOptions.config.bareArrayField
  if (Array.isArray(body)) {
    if (body.length === 0) return {}
    if (field) return { [field]: body }
    throw new AppError('invalid', 'Request body must be a JSON object or a form')
  }
  if (typeof body !== 'object') throw new AppError('invalid', 'Request body must be a JSON object or a form')
  if (field && isIndexKeyed(body)) return { [field]: Object.values(body) }
  return body as Record<string, unknown>
}

function plain(query: Record<string | symbol, unknown> | undefined): Record<string, unknown> {
  return query ? { ...query } : {}
}
