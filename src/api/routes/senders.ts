// Sender addresses: API.md 4.4.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import * as senders from '../../services/email/senders.js'
import type { Deps } from '../../services/types.js'
import { ResultTrue, responses } from '../schemas/common.js'
import * as S from '../schemas/senders.js'

const tags = ['Senders']

function toWireSender(sender: senders.Sender) {
  return { email: sender.email, name: sender.name, status: S.SenderStatusText[sender.status], is_allowed_for_smtp: true }
}

export function senderRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.get(
      '/senders',
      { schema: { tags, summary: 'List senders', response: responses(Type.Array(S.Sender)) } },
      async (request) => (await senders.listSenders(deps, request.accountId)).map(toWireSender),
    )

    app.post(
      '/senders',
      { schema: { tags, summary: 'Add a sender (inactive until activated with a code)', body: S.AddSenderBody, response: responses(ResultTrue, 422) } },
      async (request) => {
        await senders.addSender(deps, request.accountId, request.body)
        return { result: true }
      },
    )

    app.delete(
      '/senders',
      { schema: { tags, summary: 'Delete a sender', body: S.DeleteSenderBody, response: responses(ResultTrue, 404, 422) } },
      async (request) => {
        await senders.deleteSender(deps, request.accountId, request.body.email)
        return { result: true }
      },
    )

    app.get(
      '/senders/:email/code',
      {
        schema: {
          tags,
          summary: 'Email an activation code to the sender address (5 codes an hour; each valid 24 hours)',
          params: S.SenderParams,
          response: responses(S.SenderCodeResult, 404, 422),
        },
      },
      async (request) => ({ result: true, email: await senders.requestActivationCode(deps, request.accountId, request.params.email) }),
    )

    app.post(
      '/senders/:email/code',
      {
        schema: {
          tags,
          summary: 'Activate a sender with the emailed code (5 wrong codes lock it for an hour)',
          params: S.SenderParams,
          body: S.ActivateSenderBody,
          response: responses(S.SenderCodeResult, 404, 422),
        },
      },
      async (request) => ({
        result: true,
        email: await senders.activateSender(deps, request.accountId, request.params.email, String(request.body.code)),
      }),
    )
  }
}
