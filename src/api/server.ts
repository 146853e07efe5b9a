// buildServer(deps): the Fastify instance with the SendPulse conventions, auth, routes and operator
// endpoints. It never listens; main.ts (or a test's inject) drives it.
import { answerClientError } from './client-errors.js'
import { AccessLog } from './access-log.js'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { Deps } from '../services/types.js'
import { stringifyAscii } from '../lib/ascii-json.js'
import { fastifyTrustProxy } from '../lib/trust-proxy.js'
import { acceptLargeBodies, publicBodyLimit, registerBodyParsers } from './conventions/body-parsers.js'
import { parseQueryString } from './conventions/query.js'
import { registerInputNormalization } from './conventions/input.js'
import { validationError } from './conventions/validation-messages.js'
import { answerFrameworkError, registerErrorHandler } from './errors.js'
import { registerNotFound } from './not-found.js'
import { lazySerializers, lazyValidators } from './lazy-schemas.js'
import { createLoginThrottle, registerBearerCheck, registerTokenRoute } from './auth.js'
import { consoleSessionRoutes } from './console/session-routes.js'
import { templateBodyRoutes } from './routes/template-body.js'
import { consoleTemplatePreviewRoutes } from './console/template-preview.js'
import { consoleStaticRoutes } from './console/static-files.js'
import { registerRequestLimit } from './request-limit.js'
import { registerDocs, registerHealth, registerMetrics, registerOpenApi } from './operator.js'
import { addressbookRoutes } from './routes/addressbooks.js'
import { contactRoutes } from './routes/contacts.js'
import { emailRoutes } from './routes/emails.js'
import { confirmRoutes } from './routes/confirm.js'
import { senderRoutes } from './routes/senders.js'
import { tagRoutes } from './routes/tags.js'
import { blacklistRoutes } from './routes/blacklist.js'
import { balanceRoutes } from './routes/balance.js'
import { statisticsRoutes } from './routes/statistics.js'
import { templatePreviewRoutes, templateRoutes } from './routes/templates.js'
import { outboxRoutes } from './routes/outbox.js'
import { outboxBodyRoutes } from './routes/outbox-body.js'
import { campaignRoutes } from './routes/campaigns.js'
import { campaignReportRoutes } from './routes/campaign-report.js'
import { smsCampaignRoutes } from './routes/sms-campaigns.js'
import { webhookRoutes } from './routes/webhooks.js'
import { smsNumberRoutes } from './routes/sms-numbers.js'
import { smsBlacklistRoutes } from './routes/sms-blacklist.js'
import { smsSenderRoutes } from './routes/sms-senders.js'
import { viberSenderRoutes } from './routes/viber-senders.js'
import { viberCampaignRoutes } from './routes/viber-campaigns.js'
import { viberCallbackRoutes } from './routes/viber-callbacks.js'
import { viberBlacklistRoutes } from './routes/viber-blacklist.js'
import { trackingRoutes } from '../tracking/routes.js'
import { pingDatabase } from '../storage/repos/health.js'
import { readStatus } from '../services/operations/status.js'

export async function buildServer(deps: Deps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    logController: new AccessLog(),
    // Behind a reverse proxy the client is the proxy; its X-Forwarded-For names the real one.
    trustProxy: fastifyTrustProxy(deps.config.trustProxy),
    requestIdHeader: 'x-request-id',
    // Only the routes behind the bearer check read TIDINGS_BODY_LIMIT (acceptLargeBodies below).
    bodyLimit: publicBodyLimit(deps.config.bodyLimitBytes),
    routerOptions: {
      // `//sms/campaigns/info/1` and `/balance/` reach their routes (COMPAT.md 5).
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: true,
      querystringParser: parseQueryString,
      // Path parameters hold email addresses (up to 254 characters), not only ids.
      maxParamLength: 320,
    },
    // Coercion is done by conventions/normalize.ts, which never turns a number into a string.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    schemaErrorFormatter: validationError,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    schemaController: { compilersFactory: { buildValidator: lazyValidators, buildSerializer: lazySerializers } },
  })

  // The npm SDK sends GET parameters only as a JSON body (COMPAT.md 2): parse GET bodies too.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true })
  registerBodyParsers(app)
  app.setReplySerializer((payload) => stringifyAscii(payload))
  registerErrorHandler(app)
  registerNotFound(app)
  registerInputNormalization(app)
  registerMetrics(app, deps.config.metricsToken, () => readStatus(deps))
  await registerOpenApi(app)

  registerHealth(app, () => pingDatabase(deps.db))
  await registerDocs(app)
  const loginThrottle = createLoginThrottle(deps)
  registerTokenRoute(app, deps, loginThrottle)
  // The web console: its pages and its sign-in; its calls go to the API routes below, like an SDK's.
  await app.register(consoleStaticRoutes(deps))
  await app.register(consoleSessionRoutes(deps, loginThrottle))
  await app.register(consoleTemplatePreviewRoutes(deps))
  // Public routes (links in emails) go here, outside the bearer check.
  await app.register(confirmRoutes(deps))
  await app.register(templatePreviewRoutes(deps))
  await app.register(trackingRoutes(deps))
  await app.register(viberCallbackRoutes(deps))
  await app.register(async (api) => {
    registerBearerCheck(api, deps)
    registerRequestLimit(api, deps)
    acceptLargeBodies(api, deps.config.bodyLimitBytes)
    await api.register(addressbookRoutes(deps))
    await api.register(contactRoutes(deps))
    await api.register(emailRoutes(deps))
    // Resource routes: one line each.
    await api.register(senderRoutes(deps))
    await api.register(tagRoutes(deps))
    await api.register(blacklistRoutes(deps))
    await api.register(balanceRoutes(deps))
    await api.register(statisticsRoutes(deps))
    await api.register(templateRoutes(deps))
    await api.register(templateBodyRoutes(deps))
    await api.register(campaignRoutes(deps))
    await api.register(campaignReportRoutes(deps))
    await api.register(smsCampaignRoutes(deps))
    await api.register(webhookRoutes(deps))
    await api.register(outboxRoutes(deps))
    await api.register(outboxBodyRoutes(deps))
    await api.register(smsNumberRoutes(deps))
    await api.register(smsBlacklistRoutes(deps))
    await api.register(smsSenderRoutes(deps))
    await api.register(viberSenderRoutes(deps))
    await api.register(viberCampaignRoutes(deps))
    await api.register(viberBlacklistRoutes(deps))
  })
  return app
}
