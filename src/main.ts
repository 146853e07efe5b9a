// Composition root: config → storage → services → HTTP server, and an orderly shutdown on SIGTERM/SIGINT.
import pino, { type Logger } from 'pino'
import type { FastifyInstance } from 'fastify'
import type { Config } from './config/schema.js'
import { openDatabase, type Storage } from './storage/db.js'
import { migrateToLatest } from './storage/migrate.js'
import { buildServer } from './api/server.js'
import { purgeExpiredTokens } from './services/accounts/auth.js'
import { purgeExpiredSessions } from './services/accounts/console-sessions.js'
import { purgeUnmatchedReceipts } from './storage/repos/sms-parts.js'
import { CLEAN_UPS, runCleanUp } from './storage/repos/advisory-locks.js'
import * as tags from './services/audience/tags.js'
import { JobRunner } from './dispatcher/jobs.js'
import { OutboxSender } from './dispatcher/outbox-sender.js'
import { emailSender } from './dispatcher/email-driver.js'
import { smsSender } from './dispatcher/sms-sender.js'
import { smsChannel } from './delivery/sms/registry.js'
import { viberSender } from './dispatcher/viber-sender.js'
import { viberChannel } from './delivery/viber/registry.js'
import { VONAGE_CALLBACK_PATH } from './api/routes/viber-callbacks.js'
import { WebhookSender } from './dispatcher/webhook-sender.js'
import { WorkerPresence } from './dispatcher/worker-presence.js'
import { campaignJobHandlers } from './services/email/campaign-lifecycle.js'
import { smsJobHandlers } from './services/sms/dynamic-list.js'
import { emailChannel } from './delivery/registry.js'
import type { BounceListener } from './delivery/email/bounce-listener.js'
import * as bounces from './services/email/bounces.js'
import type { Deps } from './services/types.js'
import { releaseYoungGeneration } from './lib/young-generation.js'
import { collectStartupGarbage } from './lib/startup-garbage.js'

/**
 * Log lines are gathered into writes of LOG_WRITE_BYTES (about 20 access lines), written at the latest
 * LOG_FLUSH_MS after they were logged, and at exit: one write(2) per line cost ~10 µs of a request's CPU
 * (docs/benchmarks.md, "API"). Synchronous writes of the batch measured cheaper than handing them to a thread.
 */
const LOG_WRITE_BYTES = 4096
const LOG_FLUSH_MS = 250
/** Expired tokens and unmatched SMS receipts are purged every 10 minutes: the tables stay small. */
const PURGE_MS = 10 * 60_000

export function createLogger(config: Config): Logger {
  const options = {
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', '*.client_secret', '*.password'], censor: '[redacted]' },
  }
  // Pretty output for a person at a terminal, JSON lines for everything else (STYLE.md 7).
  if (process.stdout.isTTY) return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:standard' } } })
  const stdout = pino.destination({ dest: 1, sync: true, minLength: LOG_WRITE_BYTES, periodicFlush: LOG_FLUSH_MS })
  // Also on a crash: 'exit' follows an uncaught exception. pino does this itself only for asynchronous writes.
  process.once('exit', () => stdout.flushSync())
  return pino(options, stdout)
}

export function openDeps(config: Config, log: Logger): { deps: Deps; storage: Storage } {
  const storage = openDatabase(config.databaseUrl, { connectSeconds: config.dbConnectTimeoutSeconds, statementSeconds: config.dbStatementTimeoutSeconds })
  return { deps: { config, db: storage.db, now: Date.now, log }, storage }
}

export interface RunningServer {
  app: FastifyInstance
  address: string
  stop(): Promise<void>
}

/**
 * Migrates the database, then serves the API until stop() or a termination signal. With `dispatch: false`
 * (`serve --no-dispatch`) this process runs no background jobs and sends no email: other processes do.
 */
export async function serve(config: Config, log = createLogger(config), options: { dispatch?: boolean } = {}): Promise<RunningServer> {
  const { deps, storage } = openDeps(config, log)
  const applied = await migrateToLatest(storage.db as never)
  if (applied.length > 0) log.info({ migrations: applied }, 'database migrated')
  const app = await buildServer(deps)
  const address = await app.listen({ port: config.port, host: config.host })
  log.info({ address, dialect: storage.dialect }, 'tidings is serving')

  // Every API process's timer starts these; one of them runs each once a period (repos/advisory-locks.ts).
  const purge = setInterval(() => {
    const when = { now: deps.now(), periodMs: PURGE_MS }
    runCleanUp(deps.db, CLEAN_UPS.expiredTokens, when, async (tx) => (await purgeExpiredTokens({ ...deps, db: tx })) + (await purgeExpiredSessions({ ...deps, db: tx }))).catch((err: unknown) => log.warn({ err }, 'purging expired tokens failed'))
    // A receipt waits for its submit's answer a few seconds at most; a week later it will never be matched.
    runCleanUp(deps.db, CLEAN_UPS.unmatchedSmsReceipts, when, (tx) => purgeUnmatchedReceipts(tx, when.now - 7 * 86_400_000)).catch((err: unknown) =>
      log.warn({ err }, 'purging unmatched SMS receipts failed'),
    )
  }, PURGE_MS)
  purge.unref()
  const dispatcher = options.dispatch === false ? undefined : startDispatch(deps, 'serve')
  const bounces = config.bouncePort > 0 ? await listenForBounces(deps) : undefined
  releaseYoungGeneration()
  collectStartupGarbage()

  let stopping: Promise<void> | undefined
  const stop = () =>
    (stopping ??= (async () => {
      clearInterval(purge)
      // close() stops accepting, lets in-flight requests finish, then closes idle keep-alive sockets.
      await app.close()
      await bounces?.close()
      await dispatcher?.stop()
      await storage.close()
      log.info('tidings stopped')
    })())
  return { app, address, stop }
}

export interface Stoppable {
  stop(): Promise<void>
}

/**
 * The background work of a process: queued jobs, the outbox of service emails, campaign messages (email, SMS and
 * Viber) and webhooks; the process is listed in the registry of workers while it runs them (`tidings status`).
 */
export function startDispatch(deps: Deps, role: 'serve' | 'worker'): Stoppable {
  const presence = new WorkerPresence(deps, role)
  const jobs = new JobRunner(deps, { ...tags.jobHandlers, ...campaignJobHandlers, ...smsJobHandlers })
  const channel = emailChannel(deps.config)
  const outbox = new OutboxSender(deps, channel)
  const campaigns = emailSender(deps, channel)
  const sms = smsChannel(deps.config, deps.log)
  const smsCampaigns = smsSender(deps, sms)
  const viber = viberChannel(deps.config, deps.log, `${deps.config.publicUrl.replace(/\/+$/, '')}${VONAGE_CALLBACK_PATH}`)
  const viberCampaigns = viberSender(deps, viber)
  const webhooks = new WebhookSender(deps)
  presence.start()
  jobs.start()
  outbox.start()
  campaigns.start()
  smsCampaigns.start()
  viberCampaigns.start()
  webhooks.start()
  deps.log.info({ channel: channel.name, sms: sms.name, viber: viber.name }, 'dispatching jobs, email, SMS and Viber')
  return {
    stop: async () => {
      await jobs.stop()
      await outbox.stop()
      await campaigns.stop()
      await smsCampaigns.stop()
      await viberCampaigns.stop()
      await webhooks.stop()
      await channel.close()
      await sms.close()
      await viber.close()
      // Last: the process is listed as long as it may still finish work in flight.
      await presence.stop()
    },
  }
}

/** The return path's SMTP listener (TIDINGS_BOUNCE_PORT): DSN bounces, ARF complaints and mailto: unsubscribes. */
export async function listenForBounces(deps: Deps): Promise<BounceListener> {
  const log = deps.log.child({ component: 'bounces' })
  // Loaded only when the listener is on: smtp-server and mailparser are ~30 MB of an idle process's RSS.
  const { startBounceListener } = await import('./delivery/email/bounce-listener.js')
  const listener = await startBounceListener({
    port: deps.config.bouncePort,
    host: deps.config.host,
    maxClients: deps.config.bounceMaxClients,
    socketTimeoutMs: deps.config.bounceTimeoutSeconds * 1000,
    log,
    accepts: (address) => bounces.isOurAddress(deps, address),
    onMessage: async (report, envelopeTo) => {
      const outcome = await bounces.receiveMail(deps, report, envelopeTo)
      log.info(outcome, outcome.report ? 'bounce report received' : 'mail to the return path received')
    },
  })
  log.info({ port: listener.port }, 'listening for bounces')
  return listener
}

/** `tidings worker`: the dispatcher alone, for more processes next to `serve --no-dispatch` (PostgreSQL). */
export async function work(config: Config, log = createLogger(config)): Promise<Stoppable> {
  const { deps, storage } = openDeps(config, log)
  const applied = await migrateToLatest(storage.db as never)
  if (applied.length > 0) log.info({ migrations: applied }, 'database migrated')
  const dispatcher = startDispatch(deps, 'worker')
  releaseYoungGeneration()
  collectStartupGarbage()
  // The dispatcher's timers are unref'd (they must not hold `serve` open); a worker has nothing else to keep
  // it running until it is told to stop.
  const keepAlive = setInterval(() => {}, 60 * 60_000)
  log.info({ dialect: storage.dialect }, 'tidings worker is running')
  let stopping: Promise<void> | undefined
  return {
    stop: () =>
      (stopping ??= (async () => {
        clearInterval(keepAlive)
        await dispatcher.stop()
        await storage.close()
        log.info('tidings worker stopped')
      })()),
  }
}

/** Stops the server on SIGTERM/SIGINT, finishing in-flight requests first. */
export function stopOnSignals(server: Stoppable, log: Logger): void {
  const onSignal = (signal: NodeJS.Signals) => {
    log.info({ signal }, 'shutting down')
    // Exit only once the log lines are written: createLogger gathers them into larger writes.
    const exit = (code: number) => log.flush(() => process.exit(code))
    server.stop().then(
      () => exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed')
        exit(1)
      },
    )
  }
  process.once('SIGTERM', onSignal)
  process.once('SIGINT', onSignal)
}
