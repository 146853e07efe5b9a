// One template's HTML as a sandboxed page of its own (GET /template/{template_id}/body, a Tidings extension), for the console's
// gallery thumbnails: a srcdoc frame inherits the console's style-src 'self' and shows no inline style, this page has
// the outbox body's policy instead (api/routes/outbox-body.ts: sandbox, no script, data: images alone, framed by the
// console alone). An own or a system template, as GET /template/{template_id} reads; another account's is a 404.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { getTemplate } from '../../services/email/templates.js'
import type { Deps } from '../../services/types.js'
import { ErrorBody, Id } from '../schemas/common.js'
import { sendSandboxedPage } from './outbox-body.js'

export function templateBodyRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    app.get(
      '/template/:template_id/body',
      {
        schema: {
          tags: ['Templates (Tidings extension)'],
          'x-tidings-extension': true,
          'x-tidings-html-page': true,
          summary: "One template's HTML as a sandboxed page (for the console's thumbnails): no script, nothing remote",
          // Named as GET /template/{template_id}'s: one path parameter at one place of the route tree.
          params: Type.Object({ template_id: Id }),
          response: { 200: Type.String({ description: 'text/html; charset=utf-8, with its own Content-Security-Policy' }), 401: ErrorBody, 404: ErrorBody },
        },
        config: { framedByConsole: true },
      },
      async (request, reply) => {
        const template = await getTemplate(deps, request.accountId, request.params.template_id)
        return sendSandboxedPage(reply, Buffer.from(template.body).toString('utf8'), false)
      },
    )
  }
}
