// Email campaigns: API.md 4.2.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import * as campaigns from '../../services/email/campaigns.js'
import { campaignPermalink } from '../../tracking/message-links.js'
import { signingKey } from '../../tracking/signing-key.js'
import type { Deps } from '../../services/types.js'
import { toWireDate } from '../../lib/wire-date.js'
import { IdParams, ResultTrue, responses, toPage } from '../schemas/common.js'
import * as S from '../schemas/campaigns.js'
import { MESSAGE_STATUS_TEXT, toWireCampaign, toWireCampaignItem } from '../wire/campaign.js'

const tags = ['Campaigns']
const MAX_PAGE = 100

export function campaignRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.post(
      '/campaigns',
      { schema: { tags, summary: 'Create a campaign: send now, schedule, test or draft', body: S.CreateCampaignBody, response: responses(S.CampaignCreated, 403, 404, 422, 429) } },
      async (request) => {
        const created = await campaigns.createCampaign(deps, request.accountId, request.body)
        const price = (created.priceMicros / 1e6).toString()
        return {
          id: created.id,
          status: created.status,
          count: created.count,
          tariff_email_qty: created.tariffEmailQty,
          overdraft_price: price,
          ovedraft_currency: created.currency,
          overdraft_currency: created.currency,
        }
      },
    )

    app.get(
      '/campaigns',
      { schema: { tags, summary: 'Campaigns of the account, newest first', querystring: S.ListCampaignsQuery, response: responses(Type.Array(S.CampaignListItem), 422) } },
      async (request) => {
        const { order, status, planed } = request.query
        const found = await campaigns.listCampaigns(deps, request.accountId, { order, statuses: status, planned: planed }, toPage(request.query, MAX_PAGE))
        const totals = await campaigns.totalsOf(deps, found.map((c) => c.id))
        return found.map((c) => toWireCampaignItem(c, totals.get(c.id)))
      },
    )

    app.get(
      '/campaigns/:id',
      { schema: { tags, summary: 'One campaign with its statistics', params: IdParams, response: responses(S.Campaign, 404, 422) } },
      async (request) => {
        const campaign = await campaigns.getCampaign(deps, request.accountId, request.params.id)
        const totals = (await campaigns.totalsOf(deps, [campaign.id])).get(campaign.id)
        const clicks = await campaigns.linkClicks(deps, campaign.id)
        const permalink = campaignPermalink(deps.config, await signingKey(deps), campaign.id)
        return toWireCampaign(campaign, { totals, clicks, permalink })
      },
    )

    app.patch(
      '/campaigns/:id',
      { schema: { tags, summary: 'Edit a scheduled campaign or a draft', params: IdParams, body: S.EditCampaignBody, response: responses(S.CampaignUpdated, 404, 422) } },
      async (request) => {
        await campaigns.editCampaign(deps, request.accountId, request.params.id, request.body)
        return { result: true, id: request.params.id }
      },
    )

    app.delete(
      '/campaigns/:id',
      { schema: { tags, summary: 'Cancel a campaign (status 16); unsent messages are not sent', params: IdParams, response: responses(ResultTrue, 404, 422) } },
      async (request) => {
        await campaigns.cancelCampaign(deps, request.accountId, request.params.id)
        return { result: true }
      },
    )

    app.get(
      '/campaigns/:id/countries',
      { schema: { tags, summary: 'Opens per country', params: IdParams, response: responses(S.Countries, 404, 422) } },
      async (request) => Object.fromEntries(await campaigns.opensByCountry(deps, request.accountId, request.params.id)),
    )

    app.get(
      '/campaigns/:id/referrals',
      { schema: { tags, summary: 'Clicks per link', params: IdParams, response: responses(S.Referrals, 404, 422) } },
      async (request) => (await campaigns.referrals(deps, request.accountId, request.params.id)).map((r) => ({ link: r.link, count: r.clicks })),
    )

    app.get(
      '/campaigns/:id/email/:email',
      { schema: { tags: ['Email addresses'], summary: 'What happened to one address in a campaign', params: S.CampaignEmailParams, response: responses(S.CampaignEmail, 404, 422) } },
      async (request) => {
        const message = await campaigns.messageTo(deps, request.accountId, request.params.id, request.params.email)
        const sent = message.sentAt === null ? null : toWireDate(message.sentAt)
        const explain = MESSAGE_STATUS_TEXT[message.status] ?? ''
        return {
          sent_date: sent,
          send_date: sent,
          global_status: message.status,
          global_status_explain: explain,
          detail_status: message.status,
          detail_status_explain: message.lastError ?? explain,
        }
      },
    )
  }
}
