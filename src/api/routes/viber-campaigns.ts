// Viber campaigns: API.md 4.10 (create, list, statistics, recipients) with COMPAT.md "SMS and Viber" 2, 4, 5 and 11
// for shapes and the Go SDK's requests (`sent_date`, zero values, POST /viber/update).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import * as viber from '../../services/viber/campaigns.js'
import type { Deps } from '../../services/types.js'
import { IdParams, PageQuery, responses, toPage } from '../schemas/common.js'
import * as S from '../schemas/viber-campaigns.js'
import { toCreatedViberCampaign, toListedViberCampaign, toViberRecipient, toViberStatistics } from '../wire/viber-campaign.js'

const tags = ['Viber']
/** Campaigns a page: 100 by default, 1000 at most. */
const CAMPAIGN_PAGE = { default: 100, max: 1000 }
/** Recipients a page: a whole campaign typed in (1000) by default, 10,000 at most (a list's campaign may be larger: page it). */
const RECIPIENT_PAGE = { default: 1000, max: 10_000 }

export function viberCampaignRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.post(
      '/viber',
      { schema: { tags, summary: 'Create a Viber campaign (priced by country and paid at once)', body: S.CreateBody, response: responses(S.Created, 400, 404, 422) } },
      async (request) => {
        const { campaign } = await viber.createViberCampaign(deps, request.accountId, request.body)
        return { result: true, data: toCreatedViberCampaign(campaign) }
      },
    )

    app.post(
      '/viber/update',
      { schema: { tags, summary: 'Change a Viber campaign whose sending has not started', body: S.UpdateBody, response: responses(S.Created, 400, 404, 422) } },
      async (request) => {
        const { main_task_id: id, ...update } = request.body
        await viber.updateViberCampaign(deps, request.accountId, id, update)
        return { result: true, data: toCreatedViberCampaign(await viber.getViberCampaign(deps, request.accountId, id)) }
      },
    )

    app.get(
      '/viber/task',
      { schema: { tags, summary: 'Viber campaigns, newest first', querystring: PageQuery, response: responses(S.CampaignList, 422) } },
      async (request) => {
        const campaigns = await viber.listViberCampaigns(deps, request.accountId, toPage(request.query, CAMPAIGN_PAGE.max, CAMPAIGN_PAGE.default))
        const now = deps.now()
        return campaigns.map((c) => toListedViberCampaign(c, now))
      },
    )

    app.get(
      '/viber/task/:id',
      { schema: { tags, summary: 'A Viber campaign with its statistics', params: IdParams, response: responses(S.Statistics, 404, 422) } },
      async (request) => {
        const { campaign, counts } = await viber.viberCampaignStatistics(deps, request.accountId, request.params.id)
        return toViberStatistics(campaign, counts, deps.now())
      },
    )

    app.get(
      '/viber/task/:id/recipients',
      { schema: { tags, summary: 'The recipients of a Viber campaign with their status (API.md 3.5)', params: IdParams, querystring: S.RecipientsQuery, response: responses(S.Recipients, 404, 422) } },
      async (request) => {
        const page = toPage(request.query, RECIPIENT_PAGE.max, RECIPIENT_PAGE.default)
        const { campaign, recipients } = await viber.viberCampaignRecipients(deps, request.accountId, request.params.id, page)
        return { task_id: campaign.id, recipients: recipients.map((r) => toViberRecipient(r, campaign.currency)) }
      },
    )
  }
}
