// SMS sender IDs: API.md 4.11 `GET /sms/senders`, a bare array (COMPAT.md "SMS and Viber" 2). The operator
// registers and moderates them with `tidings sms senders …`.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import * as senders from '../../services/sms/senders.js'
import type { Deps } from '../../services/types.js'
import { responses } from '../schemas/common.js'
import * as S from '../schemas/sms-audience.js'

const tags = ['SMS']

export function smsSenderRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.get(
      '/sms/senders',
      { schema: { tags, summary: "The account's SMS sender IDs (0 In moderation, 1 Active, 2 Rejected)", response: responses(Type.Array(S.SmsSender)) } },
      async (request) =>
        (await senders.listSmsSenders(deps, request.accountId)).map((s) => ({
          id: s.id,
          sender: s.name,
          // Sender IDs are registered per account, not per country.
          country: '',
          country_code: '',
          status: s.status,
          status_explain: senders.senderStatusExplain(s.status),
        })),
    )
  }
}
