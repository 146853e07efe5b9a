// Tags: API.md 4.6. Changes answer SendPulse's queue envelope; the job runner applies them (dispatcher/jobs.ts).
import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import * as tags from '../../services/audience/tags.js'
import * as plans from '../../services/accounts/plans.js'
import type { Deps } from '../../services/types.js'
import { IdParams, responses } from '../schemas/common.js'
import * as S from '../schemas/tags.js'

const openApiTags = ['Tags']

/**
 * The `version` field of the tag answers. SendPulse shows its tag service's release there (e.g. "2.7.3");
 * ours is the Tidings release, from package.json (src/ and dist/ are both three levels below it).
 */
const VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version

function queued(queueId: string) {
  return { success: true, failure: false, code: 'request_sended_to_queue', description: 'Request sended to queue', http_code: 200, queue_id: queueId }
}

export function tagRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    // Every tag route needs the Pro plan (API.md 2.6); checked before the input, so the answer is always 403.
    app.addHook('onRequest', async (request) => plans.requirePlan(deps, request.accountId, 'tags'))

    const queuedWithVersion = (accountId: number, queueId: string) => ({ ...queued(queueId), user_id: accountId, version: VERSION })

    app.get(
      '/tags',
      { schema: { tags: openApiTags, summary: 'List tags', response: responses(S.TagList, 403) } },
      async (request) => ({ tags: await tags.listTags(deps, request.accountId), user_id: request.accountId, version: VERSION }),
    )

    app.post(
      '/tags',
      { schema: { tags: openApiTags, summary: 'Create a tag (queued)', body: S.TagBody, response: responses(S.QueuedWithVersion, 403, 422) } },
      async (request) => queuedWithVersion(request.accountId, await tags.queueCreateTag(deps, request.accountId, request.body)),
    )

    app.put(
      '/tags/:id',
      { schema: { tags: openApiTags, summary: 'Update a tag (queued)', params: IdParams, body: S.TagBody, response: responses(S.QueuedWithVersion, 403, 404, 422) } },
      async (request) => queuedWithVersion(request.accountId, await tags.queueUpdateTag(deps, request.accountId, request.params.id, request.body)),
    )

    app.delete(
      '/tags/:id',
      { schema: { tags: openApiTags, summary: 'Delete a tag and its links (queued)', params: IdParams, response: responses(S.QueuedWithVersion, 403, 404, 422) } },
      async (request) => queuedWithVersion(request.accountId, await tags.queueDeleteTag(deps, request.accountId, request.params.id)),
    )

    for (const action of ['pin', 'unpin'] as const) {
      app.post(
        `/tags/${action}/email`,
        { schema: { tags: openApiTags, summary: `${action === 'pin' ? 'Pin tags to' : 'Unpin tags from'} an email address (queued)`, body: S.PinEmailBody, response: responses(S.Queued, 403, 404, 422) } },
        async (request) =>
          queued(await tags.queueLinkChange(deps, request.accountId, { action, kind: 'email', value: request.body.email, tagIds: request.body.tags })),
      )
      app.post(
        `/tags/${action}/phone`,
        { schema: { tags: openApiTags, summary: `${action === 'pin' ? 'Pin tags to' : 'Unpin tags from'} a phone number (queued)`, body: S.PinPhoneBody, response: responses(S.Queued, 403, 404, 422) } },
        async (request) =>
          queued(await tags.queueLinkChange(deps, request.accountId, { action, kind: 'phone', value: request.body.phone, tagIds: request.body.tags })),
      )
    }
  }
}
