// One outbox message's HTML as a page of its own (GET /outbox/{id}/body, a Tidings extension), for the console to show
// in <iframe sandbox=""> as a mail client would: with the message's own styles, and its remote images only when the
// reader asks (`images=true`: no read receipt, no tracking pixel before that). The message is a tenant's HTML, so the
// page's own policy is the one that counts even when it is opened in a tab of its own: `sandbox` (no script, an opaque
// origin that can read nothing of the console's, no forms, no popups), nothing fetched but data: images (remote ones
// too with `images=true`), inline styles alone, no <base>, and framed by the console's origin alone.
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { shownHtmlOf } from '../../services/email/outbox.js'
import { campaignMessageHtml } from '../../services/email/campaign-outbox.js'
import type { Deps } from '../../services/types.js'
import { ErrorBody, IdParams } from '../schemas/common.js'

const BodyQuery = Type.Object({
  campaign_id: Type.Optional(Type.Integer({ minimum: 1, description: "the message is one of this email campaign's (an id GET /outbox?campaign_id= lists), not a service email" })),
  images: Type.Optional(Type.Boolean({ description: 'true: remote images are loaded too (the reader asked: a tracking pixel then counts an open)' })),
})

/** The page's policy: `sandbox` with no token first, so that no browser runs anything of the message. */
export function messageBodyPolicy(images: boolean): string {
  return [
    'sandbox',
    "default-src 'none'",
    images ? 'img-src data: http: https:' : 'img-src data:',
    "style-src 'unsafe-inline'",
    'font-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ')
}

/** Tenant HTML as a page of its own under messageBodyPolicy, with the hardening headers every such page carries. */
export function sendSandboxedPage(reply: FastifyReply, html: string, images: boolean): FastifyReply {
  return sandboxedPageHeaders(reply, images).type('text/html; charset=utf-8').send(`<!doctype html><meta charset="utf-8">${html}`)
}

/** The headers alone (a route may set them before it knows its answer, so that its refusals carry them too). */
export function sandboxedPageHeaders(reply: FastifyReply, images: boolean): FastifyReply {
  return reply
    .header('content-security-policy', messageBodyPolicy(images))
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'SAMEORIGIN')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-resource-policy', 'same-origin')
    .header('cache-control', 'no-store')
}

export function outboxBodyRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    app.get(
      '/outbox/:id/body',
      {
        schema: {
          tags: ['Outbox (Tidings extension)'],
          'x-tidings-extension': true,
          // Its success is a page (text/html), not JSON; its errors are JSON as everywhere (test/helpers/api-answer-rules.ts).
          'x-tidings-html-page': true,
          summary: "One outbox message's HTML as a sandboxed page (for the console's frame): no script, remote images only with images=true",
          params: IdParams,
          querystring: BodyQuery,
          response: { 200: Type.String({ description: 'text/html; charset=utf-8, with its own Content-Security-Policy' }), 401: ErrorBody, 404: ErrorBody, 422: ErrorBody },
        },
        config: { framedByConsole: true },
      },
      async (request, reply) => {
        const { campaign_id: campaignId, images = false } = request.query
        const html =
          campaignId === undefined
            ? await shownHtmlOf(deps.db, request.accountId, request.params.id)
            : await campaignMessageHtml(deps, request.accountId, campaignId, request.params.id)
        return sendSandboxedPage(reply, html, images)
      },
    )
  }
}
