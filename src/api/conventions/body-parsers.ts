// Request body parsing for every SendPulse client: JSON, form-urlencoded with PHP brackets, and bodies with
// no or an unknown Content-Type. Empty bodies (even with Content-Type: application/json) mean no body.
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

export function registerBodyParsers(app: FastifyInstance, bodyLimit: number): void {
  // An empty Content-Type header is the same as none (Fastify would answer 415 for it).
  app.addHook('onRequest', async (request) => {
    if (request.headers['content-type']?.trim() === '') delete request.headers['content-type']
  })
  app.removeAllContentTypeParsers()
  const options = { parseAs: 'buffer' as const, bodyLimit }
  app.addContentTypeParser('application/json', options, bufferParser(parseJsonText))
  app.addContentTypeParser(/^application\/[\w.-]+\+json$/, options, bufferParser(parseJsonText))
  app.addContentTypeParser('application/x-www-form-urlencoded', options, bufferParser(parseForm))
  app.addContentTypeParser('*', options, bufferParser(sniff))
}
