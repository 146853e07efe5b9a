// The SMS blacklist: API.md 4.11 (`/sms/black_list…`), answers as objects (COMPAT.md "SMS and Viber" 1) with
// phones as JSON integers (4). `by_numbers` reads `phones` from the query, a JSON query or a GET body (7).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import * as blacklist from '../../services/sms/blacklist.js'
import type { Deps } from '../../services/types.js'
import { toWireDate } from '../../lib/wire-date.js'
import { responses } from '../schemas/common.js'
import * as S from '../schemas/sms-audience.js'

const tags = ['SMS']

function toWireEntry(entry: blacklist.BlacklistEntry) {
  return { phone: Number(entry.phone), description: entry.description ?? '', add_date: toWireDate(entry.createdAt) }
}

export function smsBlacklistRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.post(
      '/sms/black_list',
      { schema: { tags, summary: 'Blacklist numbers for SMS', body: S.BlacklistAddBody, response: responses(S.BlacklistAddResult, 422) } },
      async (request) => ({ result: true, counters: await blacklist.addToSmsBlacklist(deps, request.accountId, request.body.phones, request.body.description) }),
    )

    app.delete(
      '/sms/black_list',
      { schema: { tags, summary: 'Remove numbers from the SMS blacklist', body: S.BlacklistPhonesBody, response: responses(S.BlacklistRemoveResult, 422) } },
      async (request) => ({ result: true, counters: { removed: await blacklist.removeFromSmsBlacklist(deps, request.accountId, request.body.phones) } }),
    )

    app.get(
      '/sms/black_list',
      { schema: { tags, summary: 'The SMS blacklist, oldest first', response: responses(S.BlacklistEntries) } },
      async (request) => ({ result: true, data: (await blacklist.listSmsBlacklist(deps, request.accountId)).map(toWireEntry) }),
    )

    app.get(
      '/sms/black_list/by_numbers',
      { schema: { tags, summary: 'Which of the numbers are on the SMS blacklist', querystring: S.BlacklistPhonesBody, response: responses(S.BlacklistEntries, 422) } },
      async (request) => ({ result: true, data: (await blacklist.findInSmsBlacklist(deps, request.accountId, request.query.phones)).map(toWireEntry) }),
    )
  }
}
