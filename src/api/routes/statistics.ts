// A Tidings extension (SendPulse has no such route): the account's emails per UTC day, for the console's
// dashboard, which the public API can give only campaign by campaign and without days
// (services/email/daily-statistics.ts).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { MAX_DAYS, dailyEmailStatistics } from '../../services/email/daily-statistics.js'
import type { Deps } from '../../services/types.js'
import { responses } from '../schemas/common.js'

const DEFAULT_DAYS = 30

const DailyQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DAYS, description: `how many UTC days, today's included (default ${DEFAULT_DAYS})` })),
})

const count = (description: string) => Type.Integer({ description })
const Counts = {
  sent: count('answered by a mail server: delivered or bounced'),
  delivered: count('taken by the recipient\'s server and not bounced since (opened, clicked, unsubscribed and complained included)'),
  opened: count('opened at least once (first opens)'),
  clicked: count('with at least one link clicked'),
  bounced: count('refused by a mail server, at once or by a later bounce report'),
  complained: count('reported as spam by the recipient (feedback loop)'),
}

const DailyStatistics = Type.Object({
  days: Type.Array(Type.Object({ date: Type.String({ description: 'YYYY-MM-DD, UTC' }), ...Counts }), { description: 'one per day, oldest first; zeros on days with none' }),
  today: Type.Object(Counts, { description: 'the last item of days' }),
  period: Type.Object(Counts, { description: 'the sums of days' }),
  queued: Type.Integer({ description: 'email messages waiting to be sent (queued or waiting for a retry)' }),
})

export function statisticsRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    app.get(
      '/statistics/email/daily',
      {
        schema: {
          tags: ['Statistics (Tidings extension)'],
          'x-tidings-extension': true,
          summary: "The account's emails per UTC day: each counted on the day a mail server answered it, with what became of it since",
          querystring: DailyQuery,
          response: responses(DailyStatistics, 422),
        },
      },
      async (request) => dailyEmailStatistics(deps, request.accountId, request.query.days ?? DEFAULT_DAYS),
    )
  }
}
