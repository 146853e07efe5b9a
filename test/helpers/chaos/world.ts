// Everything the chaos test runs against: a database of its own (an embedded PostgreSQL cluster it may stop, or a
// SQLite file), the real peers on loopback (SMTP sink, webhook receiver, SMSC, Vonage stand-in), three accounts
// set up in-process (email with a webhook, SMS, Viber) and the `tidings` processes: `serve --no-dispatch` ×2 and
// `worker` ×2 on PostgreSQL, one `serve` on SQLite.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Dialect } from '../../../src/storage/db.js'
import { creditAccount } from '../../../src/services/accounts/accounts.js'
import type { TestApp } from '../app.js'
import type { TestAccount } from '../factories.js'
import { activeSender } from '../senders.js'
import { freePort, startEmbeddedPostgres, type PostgresServer } from '../postgres.js'
import { startSmtpSink, type SmtpSink } from '../smtp-sink.js'
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver.js'
import { startSmsc, type Smsc } from '../smsc.js'
import { startVonage, type VonageStandIn } from '../vonage.js'
import { smsSetup, type SmsSetup } from '../sms.js'
import { viberSetup, type ViberSetup } from '../viber.js'
import { startSetupApp } from './setup-app.js'
import { tidingsProcess, type TidingsProcess } from './processes.js'

export const SMS_PRICES = 'default=0.01'
export const VIBER_PRICES = 'default=0.01'
/** The email account's webhook: events written by the API processes (new_emails), the workers (delivered) and both (task_status_update). */
export const WEBHOOK_ACTIONS = ['new_emails', 'delivered', 'task_status_update']
/**
 * Messages a second per channel, for all dispatching processes together (each gets its share, the rate settings
 * being per process): slow enough that a campaign of a few hundred lasts seconds and the kills land in its middle.
 */
export const RATE_PER_SECOND = { email: 100, sms: 40, viber: 40 }

export interface EmailAccount {
  account: TestAccount
  sender: string
  webhookUrl: string
}

export interface World {
  dialect: Dialect
  setup: TestApp
  /** PostgreSQL only: the cluster the test stops and starts again. */
  postgres: PostgresServer | undefined
  sink: SmtpSink
  hook: WebhookReceiver
  smsc: Smsc
  vonage: VonageStandIn
  email: EmailAccount
  sms: SmsSetup
  viber: ViberSetup
  /** The processes that answer the API (`serve`, or `serve --no-dispatch`). */
  apis: TidingsProcess[]
  /** `tidings worker` processes (none on SQLite, where `serve` dispatches). */
  workers: TidingsProcess[]
  /** How many processes send messages (each takes its share of RATE_PER_SECOND). */
  dispatchers: number
  close(): Promise<void>
}

/** `rounds`: each account gets 100 a round (a round's messages cost 0.01 at most, 2,000 of them at the largest scale tried). */
export async function startWorld(dialect: Dialect, rounds: number): Promise<World> {
  const postgres = dialect === 'postgres' ? await startEmbeddedPostgres() : undefined
  const sqliteDir = dialect === 'sqlite' ? mkdtempSync(join(tmpdir(), 'tidings-chaos-')) : undefined
  const databaseUrl = postgres ? postgres.url : `sqlite:${join(sqliteDir!, 'chaos.db')}`
  const [sink, hook, smsc, vonage] = await Promise.all([startSmtpSink(), startWebhookReceiver(), startSmsc(), startVonage()])
  // A refused callback (its API process killed, the database away) is sent again every 100 ms for 2 minutes.
  vonage.callbackAttempts = 1200
  // A receiver answering in 100 ms: a worker holds the webhook URL's lease most of the time events flow, so a kill
  // often lands in the middle of a delivery (which must then be made again).
  hook.delayMs = 100
  const drop = async () => {
    if (postgres) await postgres.stop()
    if (sqliteDir) rmSync(sqliteDir, { recursive: true, force: true })
  }
  const setup = await startSetupApp(
    databaseUrl,
    { smsPrices: SMS_PRICES, viberPrices: VIBER_PRICES, viberToken: vonage.credentials, viberSignatureSecret: vonage.signatureSecret, webhookAllowPrivate: true },
    drop,
  )
  const email = await emailAccount(setup, hook.url)
  const [sms, viber] = [await smsSetup(setup), await viberSetup(setup)]
  // Before any process runs: on SQLite `serve` is then the only writer.
  for (const account of [email.account, sms.account, viber.account]) await creditAccount(setup.deps, account.id, String(100 * rounds))

  const ports = dialect === 'postgres' ? [await freePort(), await freePort()] : [await freePort()]
  const dispatchers = dialect === 'postgres' ? 2 : 1
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: databaseUrl,
    // Viber's status callbacks come to the first API process, through its kills too (the stand-in sends them again).
    TIDINGS_PUBLIC_URL: `http://127.0.0.1:${ports[0]}`,
    TIDINGS_SMTP_URL: sink.url,
    TIDINGS_SMPP_URL: smsc.url,
    TIDINGS_VIBER_URL: vonage.url,
    TIDINGS_VIBER_TOKEN: vonage.credentials,
    TIDINGS_VIBER_SIGNATURE_SECRET: vonage.signatureSecret,
    TIDINGS_SMS_PRICES: SMS_PRICES,
    TIDINGS_VIBER_PRICES: VIBER_PRICES,
    TIDINGS_WEBHOOK_ALLOW_PRIVATE: 'true',
    TIDINGS_API_RATE: '0',
    // A dead worker's messages go again after 2 s, its webhook URL after 2 + 5 s (dispatcher/webhook-sender.ts).
    TIDINGS_SEND_LEASE: '2',
    TIDINGS_WEBHOOK_TIMEOUT: '2',
    TIDINGS_EMAIL_RATE: String(RATE_PER_SECOND.email / dispatchers),
    TIDINGS_SMS_RATE: String(RATE_PER_SECOND.sms / dispatchers),
    TIDINGS_VIBER_RATE: String(RATE_PER_SECOND.viber / dispatchers),
  }
  const apis =
    dialect === 'postgres'
      ? ports.map((port, i) => tidingsProcess(`api-${i + 1}`, 'api', env, port))
      : [tidingsProcess('serve', 'serve', env, ports[0])]
  const workers = dialect === 'postgres' ? [1, 2].map((i) => tidingsProcess(`worker-${i}`, 'worker', env)) : []
  const all = [...apis, ...workers]
  await Promise.all(all.map((p) => p.start()))

  return {
    dialect,
    setup,
    postgres,
    sink,
    hook,
    smsc,
    vonage,
    email,
    sms,
    viber,
    apis,
    workers,
    dispatchers,
    close: async () => {
      await Promise.all(all.map((p) => p.stop()))
      await Promise.all([sink.close(), hook.close(), smsc.close(), vonage.close()])
      await setup.close()
    },
  }
}

/** An account with an active sender and a webhook subscribed to WEBHOOK_ACTIONS at `url`. */
async function emailAccount(setup: TestApp, url: string): Promise<EmailAccount> {
  const account = await setup.account('chaos email')
  const sender = `news${account.id}@sender.example`
  await activeSender(setup, account, sender, 'News')
  const subscribed = await setup.call(account, { method: 'POST', url: '/v2/email-service/webhook', payload: { url, actions: WEBHOOK_ACTIONS } })
  assert.equal(subscribed.statusCode, 200, subscribed.body)
  return { account, sender, webhookUrl: url }
}
