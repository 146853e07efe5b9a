// The public tracking endpoints behind the links of campaign emails (TIDINGS_PUBLIC_URL/t/…, /archive/…; the
// web version and the archived copy at TIDINGS_CONTENT_URL when set) and the short links of SMS (/s/…).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import * as tracking from './readers.js'
import { trackingLinks } from './message-links.js'
import { followShortLink } from './short-links.js'
import { TrackingHits } from './hit-batches.js'
import type { Deps } from '../services/types.js'
import { expiredUnsubscribePage, notFoundPage, unsubscribePage } from './unsubscribe-page.js'
import { contentOriginRedirect, sendPage } from '../api/pages/public-page.js'

const tags = ['Public pages']
/** A transparent 1×1 GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64')

const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) })
const ShortLinkParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 16, pattern: '^[A-Za-z0-9]+$' }) })
const ClickParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), index: Type.Integer({ minimum: 0, maximum: 10_000 }) })

/** Answers the customer's HTML of a web version or archived copy, only at the content origin when one is set. */
async function customerHtml(deps: Deps, request: FastifyRequest, reply: FastifyReply, load: (token: string) => Promise<string | undefined>): Promise<FastifyReply> {
  const elsewhere = contentOriginRedirect(deps.config, request)
  if (elsewhere) return reply.header('cache-control', 'no-store').redirect(elsewhere, 301)
  const body = await load((request.params as { token: string }).token)
  return body === undefined ? sendPage(reply, 404, notFoundPage()) : sendPage(reply, 200, body, { customerHtml: true })
}

function unsubscribeAnswer(deps: Deps, reply: FastifyReply, token: string, answer: tracking.UnsubscribeAnswer): FastifyReply {
  if (answer === undefined) return sendPage(reply, 404, notFoundPage())
  if (answer === 'expired') return sendPage(reply, 410, expiredUnsubscribePage())
  const action = trackingLinks(deps.config, token).unsubscribe
  return sendPage(reply, 200, unsubscribePage({ ...answer, action }), answer.done ? {} : { formAction: action })
}

export function trackingRoutes(deps: Deps) {
  return async (app: FastifyInstance) => {
    const config = { public: true }
    const hits = new TrackingHits(deps)
    // After the server stopped taking requests and answered those in flight: their batches are stored by then.
    app.addHook('onClose', () => hits.close())

    app.get('/t/:token/open.gif', { schema: { tags, summary: 'Open pixel', params: TokenParams }, config }, async (request, reply) => {
      const { token } = request.params as { token: string }
      const known = await hits.open(token, request.ip)
      return reply.status(known ? 200 : 404).header('cache-control', 'no-store, private').type('image/gif').send(PIXEL)
    })

    app.get('/t/:token/c/:index', { schema: { tags, summary: 'Click redirect (only to links of that message)', params: ClickParams }, config }, async (request, reply) => {
      const { token, index } = request.params as { token: string; index: number }
      const target = await hits.click(token, index)
      if (!target) return sendPage(reply, 404, notFoundPage())
      return reply.status(302).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(target)
    })

    app.get('/s/:code', { schema: { tags, summary: 'Short tracked link of an SMS campaign', params: ShortLinkParams }, config }, async (request, reply) => {
      const target = await followShortLink(deps.db, (request.params as { code: string }).code)
      if (!target) return sendPage(reply, 404, notFoundPage())
      return reply.status(302).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(target)
    })

    app.get('/t/:token/unsubscribe', { schema: { tags, summary: 'Unsubscribe page', params: TokenParams }, config }, async (request, reply) => {
      const { token } = request.params as { token: string }
      return unsubscribeAnswer(deps, reply, token, await tracking.unsubscribeTarget(deps, token))
    })

    // The page's form and RFC 8058 one-click requests (`List-Unsubscribe=One-Click`) both post here.
    app.post('/t/:token/unsubscribe', { schema: { tags, summary: 'Unsubscribe (form or RFC 8058 one-click)', params: TokenParams }, config }, async (request, reply) => {
      const { token } = request.params as { token: string }
      return unsubscribeAnswer(deps, reply, token, await tracking.unsubscribe(deps, token))
    })

    app.get('/t/:token/view', { schema: { tags, summary: 'Web version of a message', params: TokenParams }, config }, (request, reply) =>
      customerHtml(deps, request, reply, (token) => tracking.messageCopy(deps, token)),
    )

    app.get('/archive/:token', { schema: { tags, summary: 'Archived copy of a campaign (permalink)', params: TokenParams }, config }, (request, reply) =>
      customerHtml(deps, request, reply, (token) => tracking.archivedCopy(deps, token)),
    )
  }
}
