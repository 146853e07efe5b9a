// The Viber phone blacklist: API.md 4.10 `/v2/viber-service/phone-exception`, entries as in 2.10 with phones as
// JSON integers. Paging reads `limit`/`offset` from the query, a JSON query or a GET body (COMPAT.md 2, 3, 13).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import * as blacklist from '../../services/viber/blacklist.js'
import type { Deps } from '../../services/types.js'
import { toWireDate } from '../../lib/wire-date.js'
import { PageQuery, responses, toPage } from '../schemas/common.js'
import * as S from '../schemas/viber-blacklist.js'

const tags = ['Viber']
const PATH = '/v2/viber-service/phone-exception'
/** Entries per page when no limit is given, and at most. */
const DEFAULT_PAGE = 100
const MAX_PAGE = 1000

function toWireEntry(entry: blacklist.ViberBlacklistEntry) {
  return { id: entry.id, user_id: entry.accountId, phone: Number(entry.phone), description: entry.description, add_date: toWireDate(entry.createdAt) }
}

export function viberBlacklistRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.get(
      PATH,
      { schema: { tags, summary: `The Viber blacklist, newest first (limit ${DEFAULT_PAGE} by default, at most ${MAX_PAGE})`, querystring: PageQuery, response: responses(S.ViberBlacklistPage, 422) } },
      async (request) => {
        const { entries, total } = await blacklist.listViberBlacklist(deps, request.accountId, toPage(request.query, MAX_PAGE, DEFAULT_PAGE))
        return { data: { list: entries.map(toWireEntry), total } }
      },
    )

    app.post(
      PATH,
      { schema: { tags, summary: 'Blacklist numbers for Viber', body: S.ViberBlacklistAddBody, response: responses(S.ViberBlacklistAddResult, 422) } },
      async (request) => ({ result: true, counters: await blacklist.addToViberBlacklist(deps, request.accountId, request.body.phones, request.body.description) }),
    )

    app.delete(
      PATH,
      { schema: { tags, summary: 'Remove numbers from the Viber blacklist', body: S.ViberBlacklistPhonesBody, response: responses(S.ViberBlacklistRemoveResult, 422) } },
      async (request) => ({ result: true, deleted: await blacklist.removeFromViberBlacklist(deps, request.accountId, request.body.phones) }),
    )
  }
}
