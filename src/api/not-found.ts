// Unknown routes answer 404 and known paths with the wrong method 405 (with Allow), both as JSON errors.
// Fastify answers 404 for both, so a second router of the same kind (find-my-way) remembers every path.
import FindMyWay, { type HTTPMethod } from 'find-my-way'
import type { FastifyInstance } from 'fastify'
import { AppError } from '../services/errors.js'

const METHODS: HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

export function registerNotFound(app: FastifyInstance): void {
  const known = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true })
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat() as HTTPMethod[]) {
      if (METHODS.includes(method) && !known.find(method, route.url)) known.on(method, route.url, () => {})
    }
  })
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/'
    const allowed = METHODS.filter((m) => known.find(m, path) !== null)
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '))
      throw new AppError('method_not_allowed', `Method ${request.method} is not allowed here; use ${allowed.join(', ')}`)
    }
    throw new AppError('not_found', 'Route not found')
  })
}
