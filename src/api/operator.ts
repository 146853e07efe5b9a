// The operator surface: liveness, Prometheus metrics, and the OpenAPI document with its browsable docs.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Registry, collectDefaultMetrics } from 'prom-client'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { AppError } from '../services/errors.js'
import { RequestMetrics } from './request-metrics.js'
import { registerStatusGauges } from './status-metrics.js'
import type { DispatchStatus } from '../services/operations/status.js'

/** How long one database probe answers every /healthz: a flood of them costs the database one query a second. */
const HEALTH_PROBE_MS = 1000

/**
 * Counts and times every request by method, route pattern and status, and shows the dispatcher's `status` as
 * gauges; `token`, when set, guards /metrics.
 */
export function registerMetrics(app: FastifyInstance, token: string, status: () => Promise<DispatchStatus>): void {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  registerStatusGauges(registry, status)
  const requests = new RequestMetrics(registry, [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5])
  app.addHook('onResponse', (request, reply, done) => {
    requests.record(request.method, request.is404 ? 'unmatched' : request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000)
    done()
  })
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    if (token !== '' && !bearerIs(request, token)) {
      throw new AppError('unauthorized', 'Metrics need the operator token (TIDINGS_METRICS_TOKEN)', { headers: { 'WWW-Authenticate': 'Bearer' } })
    }
    reply.type(registry.contentType)
    return registry.metrics()
  })
}

/** Compares digests, so the time taken reveals neither the token nor its length. */
function bearerIs(request: FastifyRequest, token: string): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1] ?? ''
  return timingSafeEqual(digest(given), digest(token))
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/** Liveness: `probe` (one cheap query) runs at most once per HEALTH_PROBE_MS, its answer shared meanwhile. */
export function registerHealth(app: FastifyInstance, probe: () => Promise<void>): void {
  let last: { at: number; result: Promise<void> } | undefined
  app.get('/healthz', { config: { public: true }, schema: { hide: true } }, async () => {
    const now = performance.now()
    if (!last || now - last.at >= HEALTH_PROBE_MS) last = { at: now, result: probe() }
    await last.result
    return { status: 'ok' }
  })
}

/** Collects every route schema into OpenAPI 3.1; must be registered before the routes. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tidings API',
        version: '1',
        description: 'SendPulse-compatible bulk email, SMS and Viber API. Get a token at POST /oauth/access_token, then send it as `Authorization: Bearer <token>`.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An access token from /oauth/access_token, or an API key' },
          consoleSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'tidings_console',
            description:
              'The web console: the HttpOnly cookie set by POST /console/session (named __Host-tidings_console over https), accepted only together with its CSRF token in the X-CSRF-Token header, on every method.',
          },
        },
      },
      security: [{ bearer: [] }, { consoleSession: [] }],
    },
  })
}

export async function registerDocs(app: FastifyInstance): Promise<void> {
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger())
  await app.register(swaggerUi, { routePrefix: '/docs' })
}
