// SMS campaigns: API.md 4.11 (campaign rows), with COMPAT.md "SMS and Viber" for shapes and request variants.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import * as sms from '../../services/sms/campaigns.js'
import { AppError } from '../../services/errors.js'
import type { Deps } from '../../services/types.js'
import { microsToNumber } from '../../lib/money.js'
import { parseWireDate } from '../../lib/wire-date.js'
import { IdParams, ResultTrue, responses } from '../schemas/common.js'
import * as S from '../schemas/sms-campaigns.js'
import { toListedSmsCampaign, toSmsCampaignInfo } from '../wire/sms-campaign.js'

const tags = ['SMS']

function dateArgument(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const at = parseWireDate(value)
  if (at === undefined) throw new AppError('invalid', `Argument ${name} must be a date and time as YYYY-MM-DD HH:MM:SS`)
  return at
}

export function smsCampaignRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.post(
      '/sms/campaigns',
      { schema: { tags, summary: 'Create an SMS campaign to a list (priced and paid at once)', body: S.CreateFromListBody, response: responses(S.Created, 400, 402, 403, 404, 422) } },
      async (request) => {
        const created = await sms.createSmsCampaign(deps, request.accountId, request.body, 'list')
        return { result: true, campaign_id: created.id }
      },
    )

    app.post(
      '/sms/send',
      { schema: { tags, summary: 'Send an SMS campaign to numbers', body: S.SendToNumbersBody, response: responses(S.Sent, 400, 402, 422) } },
      async (request) => {
        const created = await sms.createSmsCampaign(deps, request.accountId, request.body, 'numbers')
        return { result: true, campaign_id: created.id, counters: { exceptions: created.exceptions, sends: created.sends } }
      },
    )

    app.get(
      '/sms/campaigns/list',
      { schema: { tags, summary: 'SMS campaigns created between two dates', querystring: S.ListQuery, response: responses(S.CampaignList, 422) } },
      async (request) => {
        const range = { from: dateArgument('dateFrom', request.query.dateFrom), to: dateArgument('dateTo', request.query.dateTo) }
        const campaigns = await sms.listSmsCampaigns(deps, request.accountId, range)
        return { result: true, data: campaigns.map(toListedSmsCampaign) }
      },
    )

    app.get(
      '/sms/campaigns/info/:id',
      { schema: { tags, summary: 'An SMS campaign with the status of each number', params: IdParams, response: responses(S.CampaignInfo, 404, 422) } },
      async (request) => {
        const { campaign, numbers } = await sms.smsCampaignInfo(deps, request.accountId, request.params.id)
        return { result: true, data: toSmsCampaignInfo(campaign, numbers) }
      },
    )

    app.put(
      '/sms/campaigns/cancel/:id',
      { schema: { tags, summary: 'Cancel an SMS campaign before sending starts (paid back)', params: IdParams, response: responses(ResultTrue, 400, 404, 422) } },
      async (request) => {
        await sms.cancelSmsCampaign(deps, request.accountId, request.params.id)
        return { result: true }
      },
    )

    app.get(
      '/sms/campaigns/cost',
      { schema: { tags, summary: 'What an SMS campaign to a list or to numbers would cost', querystring: S.CostQuery, response: responses(S.Cost, 404, 422) } },
      async (request) => {
        const cost = await sms.smsCampaignCost(deps, request.accountId, request.query)
        return { result: true, data: { price: microsToNumber(cost.priceMicros), currency: cost.currency } }
      },
    )

    app.delete(
      '/sms/campaigns',
      { schema: { tags, summary: 'Delete an SMS campaign (one not yet sent is canceled and paid back first)', body: S.DeleteBody, response: responses(ResultTrue, 400, 404, 422) } },
      async (request) => {
        await sms.deleteSmsCampaign(deps, request.accountId, request.body.id)
        return { result: true }
      },
    )
  }
}
