// Request body parsing for every SendPulse client: JSON, form-urlencoded with PHP brackets, and bodies with
// no or an unknown Content-Type. Empty bodies (even with Content-Type: application/json) mean no body.
// How much is read depends on who asks: see PUBLIC_BODY_LIMIT_BYTES.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { decodeUtf8, parseForm, parseJsonText } from './parse.js'

type Parse = (text: string) => unknown

function bufferParser(parse: Parse) {
  return (_req: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void) => {
    try {
      const text = decodeUtf8(body)
      done(null, text.trim() === '' ? undefined : parse(text))
    } catch (err) {
      done(err as Error)
    }
  }
}

/** A body without a usable Content-Type: JSON if it looks like JSON, otherwise a form. */
function sniff(text: string): unknown {
  const first = text.trimStart()[0]
  return first === '{' || first === '[' ? parseJsonText(text) : parseForm(text)
}

/**
 * The body a route outside the bearer check reads (token call, confirmation and tracking links, unknown paths,
 * GET bodies included): their forms hold two credentials of at most 256 characters, or nothing. The API's
 * TIDINGS_BODY_LIMIT (8 MB) is read before any check there, and an 8 MB bracket-heavy form costs ~100 ms of CPU
 * to parse, so anyone could keep a core busy with ten requests a second.
 */
export const PUBLIC_BODY_LIMIT_BYTES = 16 * 1024

/** The server-wide limit: the public one, or TIDINGS_BODY_LIMIT when that is smaller. */
export function publicBodyLimit(bodyLimit: number): number {
  return Math.min(PUBLIC_BODY_LIMIT_BYTES, bodyLimit)
}

/** Routes registered on `api` from now on read bodies up to `bodyLimit`: call it where the bearer check runs first. */
export function acceptLargeBodies(api: FastifyInstance, bodyLimit: number): void {
  api.addHook('onRoute', (route) => {
    route.bodyLimit ??= bodyLimit
  })
}

/** Each route reads up to its own `bodyLimit`, else the server's (a larger limit is too late once read). */
export function registerBodyParsers(app: FastifyInstance): void {
  // An empty Content-Type header is the same as none (Fastify would answer 415 for it).
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.headers['content-type']?.trim() === '') delete request.headers['content-type']
    done()
  })
  app.removeAllContentTypeParsers()
  const options = { parseAs: 'buffer' as const }
  app.addContentTypeParser('application/json', options, bufferParser(parseJsonText))
  app.addContentTypeParser(/^application\/[\w.-]+\+json$/, options, bufferParser(parseJsonText))
  app.addContentTypeParser('application/x-www-form-urlencoded', options, bufferParser(parseForm))
  app.addContentTypeParser('*', options, bufferParser(sniff))
}
