// The operator surface: liveness, Prometheus metrics, and the OpenAPI document with its browsable docs.
import type { FastifyInstance } from 'fastify'
import { Registry, Counter, Histogram, collectDefaultMetrics } from 'prom-client'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'

/** Counts and times every request by method, route pattern and status. */
export function registerMetrics(app: FastifyInstance): void {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const labelNames = ['method', 'route', 'status'] as const
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] })
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })
  app.addHook('onResponse', async (request, reply) => {
    const labels = { method: request.method, route: request.is404 ? 'unmatched' : request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) }
    requests.inc(labels)
    latency.observe(labels, reply.elapsedTime / 1000)
  })
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType)
    return registry.metrics()
  })
}

export function registerHealth(app: FastifyInstance, isReady: () => Promise<void>): void {
  app.get('/healthz', { config: { public: true }, schema: { hide: true } }, async () => {
    await isReady()
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
        },
      },
      security: [{ bearer: [] }],
    },
  })
}

export async function registerDocs(app: FastifyInstance): Promise<void> {
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger())
  await app.register(swaggerUi, { routePrefix: '/docs' })
}
