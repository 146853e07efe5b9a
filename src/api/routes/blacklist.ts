// The email blacklist: API.md 4.7. `emails` is Base64 of "a@b.com, c@d.com" on the wire (COMPAT.md 17).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import * as blacklist from '../../services/audience/blacklist.js'
import { AppError } from '../../services/errors.js'
import type { Deps } from '../../services/types.js'
import { decodeBase64Text } from '../../lib/base64.js'
import { PageQuery, ResultTrue, responses } from '../schemas/common.js'
import * as S from '../schemas/blacklist.js'

const tags = ['Blacklist']

/** The addresses of a wire `emails` value: Base64 of a list separated by commas and/or whitespace. */
function decodeEmails(encoded: string): string[] {
  const text = decodeBase64Text(encoded)
  if (text === undefined) {
    throw new AppError('invalid', 'Argument emails must be Base64 of a comma-separated list of addresses, e.g. Base64("a@example.com, b@example.com")')
  }
  return text.split(/[\s,]+/).filter(Boolean)
}

export function blacklistRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.get(
      '/blacklist',
      { schema: { tags, summary: 'Blacklisted addresses (limit 0 or none: all of them)', querystring: PageQuery, response: responses(S.Blacklist, 422) } },
      // Blacklists are short and clients expect the whole list: no default page size (COMPAT.md 13).
      async (request) => blacklist.listBlacklist(deps, request.accountId, { limit: request.query.limit || undefined, offset: request.query.offset ?? 0 }),
    )

    app.post(
      '/blacklist',
      { schema: { tags, summary: 'Blacklist addresses', body: S.AddBody, response: responses(ResultTrue, 422) } },
      async (request) => {
        await blacklist.addToBlacklist(deps, request.accountId, decodeEmails(request.body.emails), request.body.comment)
        return { result: true }
      },
    )

    app.delete(
      '/blacklist',
      { schema: { tags, summary: 'Remove addresses from the blacklist', body: S.RemoveBody, response: responses(ResultTrue, 422) } },
      async (request) => {
        await blacklist.removeFromBlacklist(deps, request.accountId, decodeEmails(request.body.emails))
        return { result: true }
      },
    )
  }
}
