// Tidings extensions for the console's campaign report (SendPulse has no such routes): a campaign's recipients with
// their statuses (keyset pages by message id) and its opens and clicks per UTC hour or day. The rest of the report
// is SendPulse's own: GET /campaigns/{id}, …/countries, …/referrals.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import * as report from '../../services/email/campaign-report.js'
import { AppError } from '../../services/errors.js'
import type { Deps } from '../../services/types.js'
import { parseWireDate, toWireDate } from '../../lib/wire-date.js'
import { IdParams, responses } from '../schemas/common.js'
import { MESSAGE_STATUS_TEXT } from '../wire/campaign.js'

const tags = ['Campaigns (Tidings extension)']

/** The largest page of recipients: the console shows 50 at a time. */
const MAX_RECIPIENTS = 100
/** Buckets per answer at most: 41 days of hours, 2.7 years of days; `from` reads on. */
const MAX_BUCKETS = 1000

const WireDate = (description: string) => Type.Union([Type.String(), Type.Null()], { description: `${description}: YYYY-MM-DD HH:MM:SS, UTC; null when not yet` })

const RecipientsQuery = Type.Object({
  status: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, description: 'only messages in this statistics.general code (API.md 3.3)' })),
  after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: "keyset: the last `id` of the previous page; 0 or none for the first" })),
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: `at most ${MAX_RECIPIENTS} (more means ${MAX_RECIPIENTS}); 0 or none: ${MAX_RECIPIENTS}` })),
})

const Recipient = Type.Object({
  id: Type.Integer({ description: 'the message id, for `after`' }),
  email: Type.String(),
  status: Type.Integer({ description: 'statistics.general code (API.md 3.3)' }),
  status_explain: Type.String(),
  error: Type.Union([Type.String(), Type.Null()], { description: "the recipient's server's last answer when it refused or deferred the message" }),
  sent: WireDate('sent'),
  opened: WireDate('first opened (a click counts as an open)'),
  clicked: WireDate('first clicked'),
  country: Type.Union([Type.String(), Type.Null()], { description: 'ISO 3166 code of the first open' }),
})

const TimelineQuery = Type.Object({
  bucket: Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day')], { description: 'UTC hours (the default) or days' })),
  from: Type.Optional(Type.String({ maxLength: 19, description: 'YYYY-MM-DD HH:MM:SS, UTC: buckets from the one this falls in; none: from the first' })),
})

const TimelineBucket = Type.Object({
  time: Type.String({ description: "the bucket's start: YYYY-MM-DD HH:00:00, UTC" }),
  opens: Type.Integer({ description: 'messages first opened in the bucket' }),
  clicks: Type.Integer({ description: 'messages first clicked in the bucket' }),
})

const dateOrNull = (epochMs: number | null) => (epochMs === null ? null : toWireDate(epochMs))

export function campaignReportRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.get(
      '/campaigns/:id/recipients',
      {
        schema: {
          tags,
          'x-tidings-extension': true,
          summary: `A campaign's recipients with their statuses, in message id order; at most ${MAX_RECIPIENTS} a page, the next after the last id`,
          params: IdParams,
          querystring: RecipientsQuery,
          response: responses(Type.Array(Recipient), 404, 422),
        },
      },
      async (request) => {
        const { status, after = 0, limit = 0 } = request.query
        const found = await report.recipientsOf(deps, request.accountId, request.params.id, { status, afterId: after, limit: limit === 0 ? MAX_RECIPIENTS : Math.min(limit, MAX_RECIPIENTS) })
        return found.map((r) => ({
          id: r.id,
          email: r.address,
          status: r.status,
          status_explain: MESSAGE_STATUS_TEXT[r.status] ?? '',
          error: r.lastError,
          sent: dateOrNull(r.sentAt),
          opened: dateOrNull(r.openedAt),
          clicked: dateOrNull(r.clickedAt),
          country: r.country,
        }))
      },
    )

    app.get(
      '/campaigns/:id/timeline',
      {
        schema: {
          tags,
          'x-tidings-extension': true,
          summary: `A campaign's first opens and first clicks per UTC hour or day: the buckets that have any, oldest first, at most ${MAX_BUCKETS}`,
          params: IdParams,
          querystring: TimelineQuery,
          response: responses(Type.Array(TimelineBucket), 404, 422),
        },
      },
      async (request) => {
        const { bucket = 'hour', from } = request.query
        const fromMs = from === undefined ? 0 : parseWireDate(from)
        if (fromMs === undefined) throw new AppError('invalid', 'Argument from is invalid: YYYY-MM-DD HH:MM:SS expected')
        const buckets = await report.timelineOf(deps, request.accountId, request.params.id, { bucket, fromMs, limit: MAX_BUCKETS })
        return buckets.map((b) => ({ time: toWireDate(b.at), opens: b.opens, clicks: b.clicks }))
      },
    )
  }
}
