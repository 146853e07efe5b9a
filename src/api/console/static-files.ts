// Serves the built web console (console/, built by `npm run build` into dist/console) at /console, with the hardening
// headers of headers.ts. @fastify/static is loaded already for /docs (@fastify/swagger-ui), so the console adds no
// module to an idle server. Without a build (a checkout where only tsc ran) /console says how to build it.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import fastifyStatic from '@fastify/static'
import { AppError } from '../../services/errors.js'
import type { Deps } from '../../services/types.js'
import { consoleHeaderEntries } from './headers.js'

/** src/api/console/ and dist/api/console/ are both three levels below the package root. */
export const CONSOLE_ROOT = fileURLToPath(new URL('../../../dist/console/', import.meta.url))

/** Vite names every asset after a hash of its content: a changed file has a new name, so it may be kept for a year. */
const HASHED_ASSET = /\/assets\/[^/]+-[A-Za-z0-9_-]{8,}\.(?:js|css|svg|png|woff2)$/

export function consoleStaticRoutes(deps: Deps) {
  const headers = consoleHeaderEntries(new URL(deps.config.publicUrl).protocol === 'https:')
  return async (app: FastifyInstance) => {
    if (!existsSync(`${CONSOLE_ROOT}index.html`)) {
      const notBuilt = async () => {
        throw new AppError('not_found', 'The web console is not built: run npm run build')
      }
      app.get('/console', { config: { public: true }, schema: { hide: true } }, notBuilt)
      app.get('/console/*', { config: { public: true }, schema: { hide: true } }, notBuilt)
      return
    }
    await app.register(fastifyStatic, {
      root: CONSOLE_ROOT,
      prefix: '/console/',
      // index.html is answered by the route below: under ignoreTrailingSlash the wildcard never sees /console/.
      index: false,
      schemaHide: true,
      // Dot files and directory listings stay private; no ETag guessing games with Last-Modified alone.
      dotfiles: 'deny',
      cacheControl: false,
      setHeaders(res, path) {
        for (const [name, value] of headers) res.header(name, value)
        res.header('cache-control', HASHED_ASSET.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache')
      },
    })
    app.get('/console', { config: { public: true }, schema: { hide: true } }, (_request, reply) => reply.sendFile('index.html'))
  }
}
