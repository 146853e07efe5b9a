// The account's outbox (a Tidings extension): the emails the service sent or captured for it, so that with
// no SMTP relay configured (the capture channel) they can still be read, e.g. by tests of other software.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import * as outbox from '../../services/outbox.js'
import type { Deps } from '../../services/types.js'
import { toWireDate } from '../../lib/wire-date.js'
import { PageQuery, responses, toPage } from '../schemas/common.js'

const MAX_PAGE = 100

const OutboxItem = Type.Object({
  id: Type.Integer(),
  kind: Type.String({ description: 'confirmation or sender_code' }),
  from_email: Type.String(),
  from_name: Type.String(),
  to: Type.String(),
  subject: Type.String(),
  html: Type.String(),
  text: Type.String(),
  status: Type.String({ description: 'queued, sent, captured or failed' }),
  attempts: Type.Integer(),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created: Type.String({ description: 'YYYY-MM-DD HH:MM:SS, UTC' }),
  sent: Type.Union([Type.String(), Type.Null()]),
})

export function toWireOutboxEmail(email: outbox.OutboxEmail) {
  return {
    id: email.id,
    kind: email.kind,
    from_email: email.from.email,
    from_name: email.from.name,
    to: email.to,
    subject: email.subject,
    html: email.html,
    text: email.text,
    status: email.status,
    attempts: email.attempts,
    last_error: email.lastError,
    created: toWireDate(email.createdAt),
    sent: email.sentAt === null ? null : toWireDate(email.sentAt),
  }
}

export function outboxRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    app.get(
      '/outbox',
      {
        schema: {
          tags: ['Outbox (Tidings extension)'],
          summary: 'Emails the service sent or captured for the account, oldest first',
          querystring: PageQuery,
          response: responses(Type.Array(OutboxItem), 422),
        },
      },
      async (request) => (await outbox.listOutbox(deps.db, request.accountId, toPage(request.query, MAX_PAGE))).map(toWireOutboxEmail),
    )
  }
}
