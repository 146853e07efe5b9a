// The public Viber endpoints: the provider's status callbacks (Vonage signs each with an HS256 JWT over the body's
// hash: docs/viber.md) and the redirect behind each message's button (Tidings counts the clicks: Vonage reports
// none). Outside the bearer check; a callback whose signature does not verify is refused and changes nothing.
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { verifyVonageCallback } from '../../delivery/viber/vonage-callback.js'
import { followViberButton } from '../../services/viber/reports.js'
import { viberReportRecorder } from '../../services/viber/report-batches.js'
import type { Deps } from '../../services/types.js'
import { AppError } from '../../services/errors.js'
import { notFoundPage } from '../../tracking/unsubscribe-page.js'
import { sendPage } from '../pages/public-page.js'

const tags = ['Public pages']
export const VONAGE_CALLBACK_PATH = '/viber/callbacks/vonage'
const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) })

export function viberCallbackRoutes(deps: Deps) {
  const recordReport = viberReportRecorder(deps)
  return async (app: FastifyInstance) => {
    const config = { public: true }

    // The signature covers the body's bytes: keep them as they came (the API's JSON and form parsers would not).
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

    app.post(VONAGE_CALLBACK_PATH, { schema: { tags, summary: 'Vonage Messages status callback (signed)' }, config }, async (request, reply) => {
      if (deps.config.viberSignatureSecret === '') throw new AppError('not_found', 'No Viber provider is configured')
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
      const verified = await verifyVonageCallback(body, request.headers.authorization, { signatureSecret: deps.config.viberSignatureSecret, apiKey: deps.config.viberApiKey, now: deps.now })
      if (!verified.ok) {
        request.log.warn({ reason: verified.reason }, 'Viber callback refused')
        throw new AppError('unauthorized', 'The callback is not signed by the configured provider')
      }
      let known: boolean
      try {
        known = await recordReport(verified.report)
      } catch (err) {
        // Not stored: Vonage sends it again on the error answer, and that retry must not count as a replay.
        verified.release()
        throw err
      }
      if (!known) throw new AppError('not_found', 'No Viber message has this client_ref')
      return reply.send({ result: true })
    })

    app.get('/v/:token', { schema: { tags, summary: 'Button link of a Viber message: counts the click, then redirects', params: TokenParams }, config }, async (request, reply) => {
      const target = await followViberButton(deps, (request.params as { token: string }).token)
      if (!target) return sendPage(reply, 404, notFoundPage())
      return reply.status(302).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(target)
    })
  }
}
