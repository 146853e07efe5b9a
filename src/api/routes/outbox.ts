// The account's outbox (a Tidings extension): the emails the service sent or captured for it, and with
// `campaign_id` a campaign's messages, so that with no SMTP relay configured (the capture channel) they can
// still be read, e.g. by tests of other software. Service emails are shown with the secret that proves control
// of their recipient's address (activation code, confirmation link) as [hidden]: services/email/outbox.ts.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import * as outbox from '../../services/email/outbox.js'
import { listCampaignOutbox } from '../../services/email/campaign-outbox.js'
import type { Deps } from '../../services/types.js'
import { toWireDate } from '../../lib/wire-date.js'
import { PageQuery, responses, toPage } from '../schemas/common.js'

const MAX_PAGE = 100

const OutboxQuery = Type.Object({
  ...PageQuery.properties,
  campaign_id: Type.Optional(Type.Integer({ minimum: 1, description: "a campaign's messages (email, SMS or Viber), rendered as they were sent, instead of the service emails" })),
})

const OutboxItem = Type.Object({
  id: Type.Integer(),
  kind: Type.String({ description: 'confirmation, sender_code, campaign, sms (an SMS campaign\'s text, or one sent instead of a Viber message: from_name is its sender ID, to its number) or viber (from_name is the sender name)' }),
  from_email: Type.String(),
  from_name: Type.String(),
  to: Type.String(),
  subject: Type.String({ description: 'an activation code or confirmation link reads [hidden] here (the operator sees it with `tidings outbox`)' }),
  html: Type.String({ description: 'as subject' }),
  text: Type.String({ description: 'as subject' }),
  status: Type.String({ description: 'queued, sent, captured or failed' }),
  attempts: Type.Integer(),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created: Type.String({ description: 'YYYY-MM-DD HH:MM:SS, UTC' }),
  sent: Type.Union([Type.String(), Type.Null()]),
})

export function toWireOutboxEmail(email: outbox.ListedEmail) {
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
          querystring: OutboxQuery,
          response: responses(Type.Array(OutboxItem), 404, 422),
        },
      },
      async (request) => {
        const page = toPage(request.query, MAX_PAGE)
        const { campaign_id: campaignId } = request.query
        const emails = campaignId === undefined ? await outbox.listOutbox(deps.db, request.accountId, page) : await listCampaignOutbox(deps, request.accountId, campaignId, page)
        return emails.map(toWireOutboxEmail)
      },
    )
  }
}
