// What every answer of the API must look like, whatever it was sent (COMPAT.md): never a 5xx; JSON, never HTML,
// for every error and every JSON success; SendPulse's error body `{error_code, message}` on a 4xx; and the token
// call answers only a token or 401 invalid_client (any other JSON answer kills the npm SDK's process).
import type { LightMyRequestResponse } from 'fastify'
import { INVALID_CLIENT_BODY } from '../../src/api/errors.js'
import type { Operation } from './openapi-requests.js'

const TOKEN_CALL = 'POST /oauth/access_token'

function parsed(body: string): unknown {
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

/** What is wrong with the answer, or undefined when nothing is. */
export function answerProblem(operation: Operation, res: LightMyRequestResponse): string | undefined {
  const status = res.statusCode
  if (status >= 500) return `answered ${status}`
  // Pages for people are HTML, images and redirects by design, their errors included; only a 5xx is wrong there.
  if (operation.publicPage) return undefined
  const type = String(res.headers['content-type'] ?? '')
  const json = /^application\/json\b/.test(type)
  const ok = status >= 200 && status < 300
  if (operation.htmlPage && ok && /^text\/html; charset=utf-8$/.test(type)) return undefined
  if (/html/i.test(type) || /^\s*<(!doctype|html)/i.test(res.body)) return `an HTML answer (${status}, ${type})`
  if (!ok && !json) return `a ${status} that is not JSON (${type || 'no content-type'})`
  const body = json ? parsed(res.body) : undefined
  if (json && body === undefined) return `a ${status} whose JSON does not parse`
  if (operation.name === TOKEN_CALL) {
    if (ok && typeof (body as { access_token?: unknown }).access_token !== 'string') return 'a token-call 2xx without access_token'
    if (status >= 400 && (status !== 401 || JSON.stringify(body) !== JSON.stringify(INVALID_CLIENT_BODY))) return `a token-call ${status} other than 401 invalid_client`
    return undefined
  }
  if (status >= 400) {
    const error = body as { error_code?: unknown; message?: unknown } | null
    if (typeof error !== 'object' || error === null || Array.isArray(error)) return `a ${status} whose body is not an object`
    if (typeof error.error_code !== 'number' || typeof error.message !== 'string') return `a ${status} without {error_code: number, message: string}`
    if ((error as { error?: unknown }).error === 'invalid_client') return `a ${status} with error invalid_client outside the token call`
  }
  return undefined
}
