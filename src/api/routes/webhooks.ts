// Webhooks: API.md 4.9, with the `{success, data}` envelope; the secret and the delivery log are Tidings
// extensions (docs/webhooks.md).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type, type TSchema } from '@sinclair/typebox'
import * as webhooks from '../../services/events/webhooks.js'
import { sendTestEvent } from '../../services/events/test-event.js'
import type { Deps } from '../../services/types.js'
import { toWireDate } from '../../lib/wire-date.js'
import { IdParams, responses } from '../schemas/common.js'

const tags = ['Webhooks']
const BASE = '/v2/email-service/webhook'
const MAX_LOG = 200

const Webhook = Type.Object({ id: Type.Integer(), user_id: Type.Integer(), url: Type.String(), action: Type.String() })
const envelope = (data: TSchema) => Type.Object({ success: Type.Boolean(), data })
const Actions = Type.Union([Type.Array(Type.String()), Type.String()], { description: `one or more of ${webhooks.WEBHOOK_ACTIONS.join(', ')}` })
const Secret = envelope(Type.Object({ secret: Type.String({ description: 'whsec_…: verify deliveries with it (Standard Webhooks)' }) }))
const Attempt = Type.Object({
  started: Type.String({ description: 'YYYY-MM-DD HH:MM:SS, UTC' }),
  events: Type.Integer(),
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  latency_ms: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
})

const TestEvent = envelope(Type.Object({ event_id: Type.Integer({ description: 'the queued test event\'s id: the `id` its receiver gets' }) }))

const FailedEvent = Type.Object({
  id: Type.Integer({ description: 'the event id' }),
  event: Type.String(),
  created: Type.String(),
  failed: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
})

function toWire(webhook: webhooks.Webhook) {
  return { id: webhook.id, user_id: webhook.accountId, url: webhook.url, action: webhook.action }
}

export function webhookRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.get(BASE, { schema: { tags, summary: 'Webhooks of the account', response: responses(envelope(Type.Array(Webhook))) } }, async (request) => ({
      success: true,
      data: (await webhooks.listWebhooks(deps, request.accountId)).map(toWire),
    }))

    app.post(
      BASE,
      { schema: { tags, summary: 'Subscribe a URL to actions (one record per action)', body: Type.Object({ url: Type.String({ maxLength: 2000 }), actions: Actions }), response: responses(envelope(Type.Array(Webhook)), 422) } },
      async (request) => ({ success: true, data: (await webhooks.createWebhooks(deps, request.accountId, request.body)).map(toWire) }),
    )

    app.get(`${BASE}/secret`, { schema: { tags: ['Webhooks (Tidings extension)'], summary: 'The secret that signs deliveries', response: responses(Secret) } }, async (request) => ({
      success: true,
      data: { secret: await webhooks.webhookSecret(deps, request.accountId) },
    }))

    app.post(`${BASE}/secret`, { schema: { tags: ['Webhooks (Tidings extension)'], summary: 'Rotate the secret that signs deliveries', response: responses(Secret, 422) } }, async (request) => ({
      success: true,
      data: { secret: await webhooks.rotateWebhookSecret(deps, request.accountId) },
    }))

    app.get(`${BASE}/:id`, { schema: { tags, summary: 'One webhook', params: IdParams, response: responses(envelope(Webhook), 404, 422) } }, async (request) => ({
      success: true,
      data: toWire(await webhooks.getWebhook(deps, request.accountId, request.params.id)),
    }))

    app.put(
      `${BASE}/:id`,
      { schema: { tags, summary: 'Change the URL of a webhook', params: IdParams, body: Type.Object({ url: Type.String({ maxLength: 2000 }) }), response: responses(envelope(Type.Array(Type.Boolean())), 404, 422) } },
      async (request) => {
        await webhooks.updateWebhookUrl(deps, request.accountId, request.params.id, request.body.url)
        return { success: true, data: [true] }
      },
    )

    app.delete(`${BASE}/:id`, { schema: { tags, summary: 'Delete a webhook', params: IdParams, response: responses(envelope(Type.Array(Type.Boolean())), 404, 422) } }, async (request) => {
      await webhooks.deleteWebhook(deps, request.accountId, request.params.id)
      return { success: true, data: [true] }
    })

    app.get(
      `${BASE}/:id/deliveries`,
      { schema: { tags: ['Webhooks (Tidings extension)'], summary: 'The last requests made to the webhook\'s URL, newest first', params: IdParams, response: responses(envelope(Type.Array(Attempt)), 404, 422) } },
      async (request) => ({
        success: true,
        data: (await webhooks.deliveryLog(deps, request.accountId, request.params.id, MAX_LOG)).map((a) => ({
          started: toWireDate(a.startedAt),
          events: a.events,
          status_code: a.statusCode,
          latency_ms: a.latencyMs,
          error: a.error,
        })),
      }),
    )

    app.get(
      `${BASE}/:id/failed`,
      { schema: { tags: ['Webhooks (Tidings extension)'], summary: 'Events given up on for the webhook\'s URL, newest first', params: IdParams, response: responses(envelope(Type.Array(FailedEvent)), 404, 422) } },
      async (request) => ({
        success: true,
        data: (await webhooks.failedEvents(deps, request.accountId, request.params.id, MAX_LOG)).map((e) => ({
          id: e.eventId,
          event: e.action,
          created: toWireDate(e.createdAt),
          failed: e.failedAt === null ? null : toWireDate(e.failedAt),
          error: e.error,
        })),
      }),
    )

    app.post(
      `${BASE}/:id/test`,
      {
        schema: {
          tags: ['Webhooks (Tidings extension)'],
          'x-tidings-extension': true,
          summary: 'Queue a test event for the webhook\'s URL',
          description:
            'One event `test` (fields `webhook_id`, `webhook_action`) is queued for the URL and delivered like any event: signed, retried, in the delivery log. The URL\'s backoff after failed requests is cut short. At most one test per URL every 5 seconds (429 with Retry-After).',
          params: IdParams,
          response: responses(TestEvent, 404, 422, 429),
        },
      },
      async (request) => ({ success: true, data: { event_id: (await sendTestEvent(deps, request.accountId, request.params.id)).eventId } }),
    )
  }
}
