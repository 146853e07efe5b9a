// The public tracking endpoints behind the links of campaign emails (TIDINGS_PUBLIC_URL/t/…, /archive/…).
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import * as tracking from '../../services/tracking.js'
import type { Deps } from '../../services/types.js'
import { notFoundPage, unsubscribePage } from '../pages/unsubscribe-page.js'

const tags = ['Public pages']
/** A transparent 1×1 GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64')
/** Customer HTML shown on our origin: no scripts, no forms posting elsewhere, no framing. */
const CONTENT_POLICY = "default-src 'none'; img-src * data:; style-src 'unsafe-inline' *; font-src *; form-action 'self'; frame-ancestors 'none'"

const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) })
const ClickParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), index: Type.Integer({ minimum: 0, maximum: 10_000 }) })

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.status(status).header('cache-control', 'no-store').header('content-security-policy', CONTENT_POLICY).type('text/html; charset=utf-8').send(body)
}

export function trackingRoutes(deps: Deps) {
  return async (app: FastifyInstance) => {
    const config = { public: true }

    app.get('/t/:token/open.gif', { schema: { tags, summary: 'Open pixel', params: TokenParams }, config }, async (request, reply) => {
      const { token } = request.params as { token: string }
      const known = await tracking.recordOpen(deps, token, request.ip)
      return reply.status(known ? 200 : 404).header('cache-control', 'no-store, private').type('image/gif').send(PIXEL)
    })

    app.get('/t/:token/c/:index', { schema: { tags, summary: 'Click redirect (only to links of that message)', params: ClickParams }, config }, async (request, reply) => {
      const { token, index } = request.params as { token: string; index: number }
      const target = await tracking.followLink(deps, token, index)
      if (!target) return html(reply, 404, notFoundPage())
      return reply.status(302).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(target)
    })

    app.get('/t/:token/unsubscribe', { schema: { tags, summary: 'Unsubscribe page', params: TokenParams }, config }, async (request, reply) => {
      const target = await tracking.unsubscribeTarget(deps, (request.params as { token: string }).token)
      return target ? html(reply, 200, unsubscribePage(target)) : html(reply, 404, notFoundPage())
    })

    // The page's form and RFC 8058 one-click requests (`List-Unsubscribe=One-Click`) both post here.
    app.post('/t/:token/unsubscribe', { schema: { tags, summary: 'Unsubscribe (form or RFC 8058 one-click)', params: TokenParams }, config }, async (request, reply) => {
      const target = await tracking.unsubscribe(deps, (request.params as { token: string }).token)
      return target ? html(reply, 200, unsubscribePage(target)) : html(reply, 404, notFoundPage())
    })

    app.get('/t/:token/view', { schema: { tags, summary: 'Web version of a message', params: TokenParams }, config }, async (request, reply) => {
      const copy = await tracking.messageCopy(deps, (request.params as { token: string }).token)
      return copy === undefined ? html(reply, 404, notFoundPage()) : html(reply, 200, copy)
    })

    app.get('/archive/:token', { schema: { tags, summary: 'Archived copy of a campaign (permalink)', params: TokenParams }, config }, async (request, reply) => {
      const copy = await tracking.archivedCopy(deps, (request.params as { token: string }).token)
      return copy === undefined ? html(reply, 404, notFoundPage()) : html(reply, 200, copy)
    })
  }
}
