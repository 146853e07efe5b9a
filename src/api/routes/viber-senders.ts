// Viber sender names: API.md 4.10 `GET /viber/senders` (a bare array) and `/viber/senders/{id}` (a bare object),
// COMPAT.md "SMS and Viber" 2 and 5. The operator registers and moderates them with `tidings viber senders …`.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import * as senders from '../../services/viber/senders.js'
import type { Deps } from '../../services/types.js'
import { IdParams, responses } from '../schemas/common.js'
import * as S from '../schemas/viber-senders.js'

const tags = ['Viber']

function toWireSender(s: senders.ViberSender) {
  return {
    id: s.id,
    status: s.status,
    name: s.name,
    service_type: s.serviceType,
    web_site: s.webSite,
    description: s.description,
    country: s.country,
    countries: s.country === '' ? [] : [s.country],
    traffic_type: s.trafficType,
    admin_comment: s.adminComment,
    owner: 'you',
  }
}

export function viberSenderRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.get(
      '/viber/senders',
      { schema: { tags, summary: "The account's Viber sender names, oldest first", response: responses(Type.Array(S.ViberSender)) } },
      async (request) => (await senders.listViberSenders(deps, request.accountId)).map(toWireSender),
    )

    app.get(
      '/viber/senders/:id',
      { schema: { tags, summary: 'One Viber sender name of the account', params: IdParams, response: responses(S.ViberSender, 404, 422) } },
      async (request) => toWireSender(await senders.getViberSender(deps, request.accountId, request.params.id)),
    )
  }
}
