// An address across the account's lists: API.md 4.5.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import * as emails from '../../services/audience/emails.js'
import { variablesAsList } from '../../services/audience/contact-variables.js'
import type { Deps } from '../../services/types.js'
import { toWireDate } from '../../lib/wire-date.js'
import { ResultTrue, responses } from '../schemas/common.js'
import * as S from '../schemas/emails.js'
import { statusExplain } from '../wire/contact.js'

const tags = ['Email addresses']

export function emailRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.get(
      '/emails/:email',
      { schema: { tags, summary: 'The lists holding an address', params: S.EmailPathParams, response: responses(Type.Array(S.EmailInBook), 422) } },
      async (request) => {
        const found = await emails.findAddress(deps, request.accountId, request.params.email)
        return found.map((c) => ({
          book_id: c.bookId,
          email: c.email,
          status: c.status,
          status_explain: statusExplain(c.status),
          variables: variablesAsList(c.variables, c.types),
        }))
      },
    )

    app.get(
      '/emails/:email/details',
      { schema: { tags, summary: 'Where and when an address was added', params: S.EmailPathParams, response: responses(Type.Array(S.EmailDetail), 422) } },
      async (request) => {
        const found = await emails.findAddress(deps, request.accountId, request.params.email)
        return found.map((c) => ({ list_name: c.bookName, list_id: c.bookId, add_date: toWireDate(c.createdAt), source: c.source }))
      },
    )

    app.post(
      '/emails',
      { schema: { tags, summary: 'The lists holding each of several addresses', body: S.EmailsListBody, response: responses(S.EmailsInfo, 422) }, config: { bareArrayField: 'emails' } },
      async (request) => {
        const found = await emails.findEverywhere(deps, request.accountId, request.body.emails)
        const answer: Record<string, unknown[]> = {}
        for (const [email, listed] of found) {
          answer[email] = listed.map((c) => ({ book_id: c.bookId, status: c.status, variables: variablesAsList(c.variables, c.types) }))
        }
        return answer
      },
    )

    app.get(
      '/emails/:email/campaigns',
      { schema: { tags, summary: 'Campaign statistics, lists and blacklist state of an address', params: S.EmailPathParams, response: responses(S.AddressStatistics, 422) } },
      async (request) => {
        const stats = await emails.statisticsOfAddress(deps, request.accountId, request.params.email)
        return {
          statistic: { sent: stats.sent, open: stats.opened, link: stats.clicked },
          blacklist: stats.blacklisted,
          addressbooks: stats.books.map((b) => ({ id: b.id, address_book_name: b.name })),
        }
      },
    )

    app.post(
      '/emails/campaigns',
      { schema: { tags, summary: 'Campaign statistics of several addresses', body: S.EmailsListBody, response: responses(S.AddressesStatistics, 422) }, config: { bareArrayField: 'emails' } },
      async (request) => {
        const answer: Record<string, unknown> = {}
        for (const [email, stats] of await emails.statisticsOf(deps, request.accountId, request.body.emails)) {
          answer[email] = { sent: stats.sent, open: stats.opened, link: stats.clicked, adressbooks: stats.books, blacklist: stats.blacklisted }
        }
        return answer
      },
    )

    app.delete(
      '/emails/:email',
      { schema: { tags, summary: "Remove an address from every list of the account", params: S.EmailPathParams, response: responses(ResultTrue, 422) } },
      async (request) => {
        await emails.deleteEverywhere(deps, request.accountId, request.params.email)
        return { result: true }
      },
    )
  }
}
