// The configuration surface: every setting, its type, default, environment variable and whether it is secret.
import { Type, type Static } from '@sinclair/typebox'

export const ConfigSchema = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  host: Type.String({ minLength: 1 }),
  dataDir: Type.String({ minLength: 1 }),
  databaseUrl: Type.String({ minLength: 1 }),
  dbConnectTimeoutSeconds: Type.Integer({ minimum: 1 }),
  dbStatementTimeoutSeconds: Type.Integer({ minimum: 1 }),
  publicUrl: Type.String({ minLength: 1 }),
  systemFrom: Type.String({ pattern: '^(?:[^<>\\r\\n]*<[^<>@\\s]+@[^<>@\\s]+>|[^<>@\\s]+@[^<>@\\s]+)$' }),
  logLevel: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))),
  bodyLimitBytes: Type.Integer({ minimum: 1024 }),
  // 600: PHP 3.x renews 300 s before expiry. 86400: a leaked token lives one day at most.
  tokenTtlSeconds: Type.Integer({ minimum: 600, maximum: 86400 }),
  loginMaxFailures: Type.Integer({ minimum: 1 }),
  loginMaxFailuresPerIp: Type.Integer({ minimum: 1 }),
  loginWindowSeconds: Type.Integer({ minimum: 1 }),
  // Web console sessions: idle expiry at least a minute (the last activity is recorded once a minute).
  consoleIdleSeconds: Type.Integer({ minimum: 60 }),
  consoleSessionSeconds: Type.Integer({ minimum: 60, maximum: 30 * 86400 }),
  // At most 10^6/s and 10^9: the shared bucket counts thousandths of a request in a bigint (storage/repos/api-request-buckets.ts).
  apiRatePerSecond: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  apiBurst: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
  emailPrice: Type.Number({ minimum: 0 }),
  smsPrices: Type.String(),
  defaultCurrency: Type.String({ pattern: '^[A-Z]{3}$' }),
  currencyRates: Type.String({ pattern: '^\\s*[A-Za-z]{3}\\s*=\\s*[0-9.]+\\s*(,\\s*[A-Za-z]{3}\\s*=\\s*[0-9.]+\\s*)*$' }),
  contactActivation: Type.Union([Type.Literal('auto'), Type.Literal('manual')]),
  secretKey: Type.String(),
  secretKeyOld: Type.String(),
  linkTtlDays: Type.Integer({ minimum: 1 }),
  contentUrl: Type.String({ pattern: '^$|^https?://' }),
  smtpUrl: Type.String({ pattern: '^$|^smtps?://' }),
  smtpInsecure: Type.Boolean(),
  dkimDomain: Type.String(),
  dkimSelector: Type.String(),
  dkimPrivateKey: Type.String(),
  campaignsPerHour: Type.Integer({ minimum: 1 }),
  moderation: Type.Union([Type.Literal('auto'), Type.Literal('manual')]),
  // At most 10^6/s: the shared buckets count millionths of a unit in a bigint (storage/repos/send-rate-buckets.ts).
  emailRatePerSecond: Type.Number({ minimum: 0, maximum: 1_000_000 }),
  emailAccountRatePerSecond: Type.Number({ minimum: 0, maximum: 1_000_000 }),
  smppUrl: Type.String({ pattern: '^$|^s?smpp://' }),
  smppWindow: Type.Integer({ minimum: 1 }),
  smppEnquireLinkSeconds: Type.Integer({ minimum: 1 }),
  smppGsm7Packing: Type.Union([Type.Literal('unpacked'), Type.Literal('packed')]),
  smsRatePerSecond: Type.Number({ minimum: 0, maximum: 1_000_000 }),
  smsAccountRatePerSecond: Type.Number({ minimum: 0, maximum: 1_000_000 }),
  viberPrices: Type.String(),
  viberUrl: Type.String({ pattern: '^$|^https?://' }),
  viberToken: Type.String(),
  viberApplicationId: Type.String(),
  viberPrivateKey: Type.String(),
  viberApiKey: Type.String(),
  viberSignatureSecret: Type.String(),
  viberConcurrency: Type.Integer({ minimum: 1, maximum: 1000 }),
  viberTimeoutSeconds: Type.Integer({ minimum: 1, maximum: 300 }),
  viberRatePerSecond: Type.Number({ minimum: 0, maximum: 1_000_000 }),
  viberAccountRatePerSecond: Type.Number({ minimum: 0, maximum: 1_000_000 }),
  sendLeaseSeconds: Type.Integer({ minimum: 1 }),
  heartbeatSeconds: Type.Number({ minimum: 0.1, maximum: 3600 }),
  bounceDomain: Type.String(),
  bouncePort: Type.Integer({ minimum: 0, maximum: 65535 }),
  bounceMaxClients: Type.Integer({ minimum: 1 }),
  bounceTimeoutSeconds: Type.Integer({ minimum: 1 }),
  // Read by lib/trust-proxy.ts before validation: false, a hop count, or proxy addresses and CIDR ranges
  // (`true` is read as 1; the type keeps it so code and tests may still say `true`).
  trustProxy: Type.Union([Type.Boolean(), Type.Integer({ minimum: 1 }), Type.Array(Type.String(), { minItems: 1 })]),
  webhookAllowPrivate: Type.Boolean(),
  webhookTimeoutSeconds: Type.Integer({ minimum: 1, maximum: 300 }),
  webhookRetryHours: Type.Number({ minimum: 0 }),
  webhookKeepDays: Type.Number({ minimum: 0 }),
  metricsToken: Type.String(),
})

export type Config = Static<typeof ConfigSchema>

export interface SettingInfo {
  env: string
  default: (partial: Partial<Config>) => Config[keyof Config]
  description: string
  /**
   * How `tidings config` hides it: `value`, all of it (keys, tokens); `credentials`, the password and secret
   * query parameters of the URL it holds. Settings named like secrets and credentials in any URL are hidden
   * even without it (config/redact.ts).
   */
  secret?: 'value' | 'credentials'
}

/** One row per setting: the environment variable that sets it, its default and what it does. */
export const SETTINGS: { [K in keyof Config]: SettingInfo } = {
  port: { env: 'PORT', default: () => 8080, description: 'HTTP port of the API' },
  host: { env: 'HOST', default: () => '127.0.0.1', description: 'Address to listen on (0.0.0.0 for every interface)' },
  dataDir: { env: 'TIDINGS_DATA_DIR', default: () => './data', description: 'Directory of the SQLite database and other local files' },
  databaseUrl: {
    env: 'DATABASE_URL',
    default: (c) => `sqlite:${c.dataDir ?? './data'}/tidings.db`,
    description: '`sqlite:PATH` or `postgres://user:pass@host/db`',
    secret: 'credentials',
  },
  dbConnectTimeoutSeconds: {
    env: 'TIDINGS_DB_CONNECT_TIMEOUT',
    default: () => 5,
    description: 'PostgreSQL: seconds to wait for a connection (also for a free one of the pool); then the API answers 503',
  },
  dbStatementTimeoutSeconds: {
    env: 'TIDINGS_DB_STATEMENT_TIMEOUT',
    default: () => 30,
    description: 'PostgreSQL: seconds a statement may run (statement_timeout; the client gives up 5 s later); then the API answers 503',
  },
  publicUrl: { env: 'TIDINGS_PUBLIC_URL', default: (c) => `http://localhost:${c.port ?? 8080}`, description: 'Public base URL (tracking links)' },
  systemFrom: {
    env: 'TIDINGS_SYSTEM_FROM',
    default: (c) => `Tidings <no-reply@${mailDomainOf(c.publicUrl)}>`,
    description: 'From of the emails the service sends itself (sender activation codes), `Name <address>` or an address',
  },
  logLevel: { env: 'LOG_LEVEL', default: () => 'info', description: 'pino log level' },
  bodyLimitBytes: {
    env: 'TIDINGS_BODY_LIMIT',
    default: () => 8 * 1024 * 1024,
    description: 'Largest request body in bytes an API call with a token may send (larger: 413); calls without one (token call, links in emails) may send 16 KB',
  },
  tokenTtlSeconds: { env: 'TIDINGS_TOKEN_TTL', default: () => 3600, description: 'Lifetime of OAuth access tokens in seconds (600 to 86400)' },
  loginMaxFailures: { env: 'TIDINGS_LOGIN_MAX_FAILURES', default: () => 10, description: 'Failed token calls allowed per client_id and IP in a window' },
  loginMaxFailuresPerIp: { env: 'TIDINGS_LOGIN_MAX_FAILURES_PER_IP', default: () => 50, description: 'Failed token calls allowed per IP in a window' },
  loginWindowSeconds: { env: 'TIDINGS_LOGIN_WINDOW', default: () => 900, description: 'Length of the failed-login window in seconds' },
  consoleIdleSeconds: { env: 'TIDINGS_CONSOLE_IDLE_TIMEOUT', default: () => 1800, description: 'Web console: seconds without a request after which a sign-in ends' },
  consoleSessionSeconds: { env: 'TIDINGS_CONSOLE_SESSION_TTL', default: () => 43200, description: 'Web console: seconds after which a sign-in ends however active (at most 30 days)' },
  apiRatePerSecond: {
    env: 'TIDINGS_API_RATE',
    default: () => 100,
    description: 'API calls an account may make per second, all API processes together (more: 429 with Retry-After; the token call is not counted); 0: no limit',
  },
  apiBurst: { env: 'TIDINGS_API_BURST', default: () => 200, description: 'API calls an account may make at once above TIDINGS_API_RATE, after a quiet spell' },
  emailPrice: { env: 'TIDINGS_EMAIL_PRICE', default: () => 0.0044, description: 'Price of one email beyond the tariff, in the account currency' },
  smsPrices: {
    env: 'TIDINGS_SMS_PRICES',
    default: () => 'default=0.02',
    description: 'Price of one SMS part by the number\'s country and route, e.g. `default=0.02,UA=0.015,UA:international=0.03` (the most specific entry wins)',
  },
  defaultCurrency: { env: 'TIDINGS_DEFAULT_CURRENCY', default: () => 'USD', description: 'Currency of accounts created without --currency' },
  currencyRates: {
    env: 'TIDINGS_CURRENCY_RATES',
    default: () => 'USD=1',
    description: 'Units of each currency per 1 USD for GET /balance/{currency}, e.g. `USD=1,EUR=0.92,UAH=41.3`',
  },
  contactActivation: {
    env: 'TIDINGS_CONTACT_ACTIVATION',
    default: () => 'auto',
    description: '`auto`: added contacts are Active; `manual`: they wait (status 0) for `tidings contacts activate`',
  },
  smtpUrl: {
    env: 'TIDINGS_SMTP_URL',
    default: () => '',
    description: 'SMTP relay for outgoing email, `smtp://user:pass@host:587` (STARTTLS, required with a password) or `smtps://…:465`; empty: capture (stored, not sent)',
    secret: 'credentials',
  },
  smtpInsecure: {
    env: 'TIDINGS_SMTP_INSECURE',
    default: () => false,
    description: 'Let an `smtp://` relay with a user and password go without STARTTLS (password and mail in clear); otherwise sending waits until the relay offers it',
  },
  dkimDomain: { env: 'TIDINGS_DKIM_DOMAIN', default: () => '', description: 'Domain (d=) of the DKIM signature of outgoing email; empty: no signature' },
  dkimSelector: { env: 'TIDINGS_DKIM_SELECTOR', default: () => 'tidings', description: 'DKIM selector (s=): the key is published at SELECTOR._domainkey.DOMAIN' },
  dkimPrivateKey: {
    env: 'TIDINGS_DKIM_PRIVATE_KEY',
    default: () => '',
    description: 'DKIM private key: PEM text, or the path of a PEM file',
    secret: 'value',
  },
  campaignsPerHour: { env: 'TIDINGS_CAMPAIGNS_PER_HOUR', default: () => 4, description: 'Email campaigns an account may create per hour (API.md 8); more: 429' },
  moderation: {
    env: 'TIDINGS_MODERATION',
    default: () => 'auto',
    description: '`auto`: campaigns of 20 or more recipients pass moderation at once; `manual`: they wait for `tidings campaigns approve|reject ID`',
  },
  emailRatePerSecond: {
    env: 'TIDINGS_EMAIL_RATE',
    default: () => 0,
    description: 'Campaign emails sent per second at most, by all workers together (0: as fast as the relay takes them)',
  },
  emailAccountRatePerSecond: {
    env: 'TIDINGS_EMAIL_ACCOUNT_RATE',
    default: () => 0,
    description: 'Campaign emails each account may send per second at most, by all workers together (0: no limit per account)',
  },
  smppUrl: {
    env: 'TIDINGS_SMPP_URL',
    default: () => '',
    description: 'SMSC for outgoing SMS, `smpp://system_id:password@host:2775` (`ssmpp://` for TLS, `?system_type=` if the SMSC asks for one); empty: capture (stored, not sent, receipts simulated)',
    secret: 'credentials',
  },
  smppWindow: { env: 'TIDINGS_SMPP_WINDOW', default: () => 10, description: 'submit_sm the SMPP channel sends ahead of their answers, at most' },
  smppEnquireLinkSeconds: {
    env: 'TIDINGS_SMPP_ENQUIRE_LINK',
    default: () => 30,
    description: 'Seconds between enquire_link keep-alives on the SMPP bind (no answer within 10 s: reconnect)',
  },
  smppGsm7Packing: {
    env: 'TIDINGS_SMPP_GSM7_PACKING',
    default: () => 'unpacked',
    description: 'GSM-7 texts (data_coding 0) as the SMSC expects them: `unpacked` (one septet per octet, most SMSCs) or `packed` (8 septets in 7 octets)',
  },
  smsRatePerSecond: {
    env: 'TIDINGS_SMS_RATE',
    default: () => 0,
    description: 'Campaign SMS parts sent per second at most, by all workers together (0: as fast as the SMSC takes them)',
  },
  smsAccountRatePerSecond: {
    env: 'TIDINGS_SMS_ACCOUNT_RATE',
    default: () => 0,
    description: 'Campaign SMS parts each account may send per second at most, by all workers together (0: no limit per account)',
  },
  viberPrices: {
    env: 'TIDINGS_VIBER_PRICES',
    default: () => 'default=0.01',
    description: 'Price of one Viber message by the number\'s country, e.g. `default=0.01,UA=0.008` (the country\'s entry wins over `default`)',
  },
  viberUrl: {
    env: 'TIDINGS_VIBER_URL',
    default: () => '',
    description: 'Vonage Messages API endpoint for outgoing Viber messages, e.g. `https://api.nexmo.com/v1/messages` (docs/viber.md); empty: capture (stored, not sent, reports simulated)',
    secret: 'credentials',
  },
  viberToken: {
    env: 'TIDINGS_VIBER_TOKEN',
    default: () => '',
    description: 'Vonage credentials as `API_KEY:API_SECRET` (HTTP Basic); with TIDINGS_VIBER_URL, these or an application (TIDINGS_VIBER_APPLICATION_ID) are required',
    secret: 'value',
  },
  viberApplicationId: {
    env: 'TIDINGS_VIBER_APPLICATION_ID',
    default: () => '',
    description: 'Vonage application id: Viber messages are sent with a JWT of this application (recommended, docs/viber.md), not TIDINGS_VIBER_TOKEN',
  },
  viberPrivateKey: {
    env: 'TIDINGS_VIBER_PRIVATE_KEY',
    default: () => '',
    description: 'The Vonage application\'s RSA private key (its JWTs are signed with it): PEM text, or the path of a PEM file; required with TIDINGS_VIBER_APPLICATION_ID',
    secret: 'value',
  },
  viberApiKey: {
    env: 'TIDINGS_VIBER_API_KEY',
    default: (c) => (c.viberToken ?? '').split(':')[0] ?? '',
    description: 'Vonage account API key: status callbacks must name it (`api_key`); default: the key of TIDINGS_VIBER_TOKEN; required with TIDINGS_VIBER_APPLICATION_ID when no token is set',
  },
  viberSignatureSecret: {
    env: 'TIDINGS_VIBER_SIGNATURE_SECRET',
    default: () => '',
    description: 'Vonage account signature secret: status callbacks whose HS256 JWT it does not verify are refused; required with TIDINGS_VIBER_URL',
    secret: 'value',
  },
  viberConcurrency: { env: 'TIDINGS_VIBER_CONCURRENCY', default: () => 20, description: 'Viber send requests in flight at once (the provider takes one recipient per request)' },
  viberTimeoutSeconds: { env: 'TIDINGS_VIBER_TIMEOUT', default: () => 10, description: 'Seconds a Viber send request may take; longer: retried later' },
  viberRatePerSecond: {
    env: 'TIDINGS_VIBER_RATE',
    default: () => 0,
    description: 'Campaign Viber messages sent per second at most, by all workers together (0: as fast as the provider takes them)',
  },
  viberAccountRatePerSecond: {
    env: 'TIDINGS_VIBER_ACCOUNT_RATE',
    default: () => 0,
    description: 'Campaign Viber messages each account may send per second at most, by all workers together (0: no limit per account)',
  },
  sendLeaseSeconds: {
    env: 'TIDINGS_SEND_LEASE',
    default: () => 300,
    description: 'Seconds a worker holds the messages it claimed, renewed every third of it while they are in flight; a dead worker\'s messages are sent by another after this',
  },
  heartbeatSeconds: {
    env: 'TIDINGS_HEARTBEAT',
    default: () => 5,
    description: 'Seconds between the heartbeats of a dispatching process (`serve`, `worker`) in the registry of workers; one silent for 3 of them is not listed as live (`tidings status`, /metrics)',
  },
  bounceDomain: {
    env: 'TIDINGS_BOUNCE_DOMAIN',
    default: (c) => mailDomainOf(c.publicUrl),
    description: 'Domain of the per-recipient Return-Path (VERP) addresses; its MX should reach the bounce listener',
  },
  bouncePort: { env: 'TIDINGS_BOUNCE_PORT', default: () => 0, description: 'Port of the inbound SMTP listener for bounces (DSN) and complaints (ARF); 0: off' },
  bounceMaxClients: { env: 'TIDINGS_BOUNCE_MAX_CLIENTS', default: () => 20, description: 'Connections the bounce listener serves at once (each may hold a report of up to 2 MiB); more are told to try again later (421)' },
  bounceTimeoutSeconds: { env: 'TIDINGS_BOUNCE_TIMEOUT', default: () => 60, description: 'Seconds a bounce listener connection may stay silent before it is closed' },
  trustProxy: {
    env: 'TIDINGS_TRUST_PROXY',
    default: () => false,
    description:
      'Reverse proxies whose X-Forwarded-For names the client (login throttle, country of opens): `false`; a hop count (`true` = 1: the last entry); or proxy addresses and CIDR ranges, `10.0.0.2,192.168.0.0/16`',
  },
  webhookAllowPrivate: {
    env: 'TIDINGS_WEBHOOK_ALLOW_PRIVATE',
    default: () => false,
    description: 'Let webhooks reach loopback, private, link-local and metadata addresses (self-hosted receivers, tests)',
  },
  webhookTimeoutSeconds: { env: 'TIDINGS_WEBHOOK_TIMEOUT', default: () => 10, description: 'Seconds a webhook receiver has to answer a delivery' },
  webhookRetryHours: { env: 'TIDINGS_WEBHOOK_RETRY_HOURS', default: () => 24, description: 'Hours an event is retried for before it is marked failed' },
  webhookKeepDays: { env: 'TIDINGS_WEBHOOK_KEEP_DAYS', default: () => 7, description: 'Days delivered and failed webhook events are kept (the failed list) before they are forgotten' },
  metricsToken: {
    env: 'TIDINGS_METRICS_TOKEN',
    default: () => '',
    description: 'Bearer token GET /metrics asks for (`Authorization: Bearer TOKEN`); empty: /metrics is open',
    secret: 'value',
  },
  secretKey: {
    env: 'TIDINGS_SECRET_KEY',
    default: () => '',
    description: 'Key that signs links in emails, at least 32 bytes; when empty one is generated once and kept in the database',
    secret: 'value',
  },
  secretKeyOld: {
    env: 'TIDINGS_SECRET_KEY_OLD',
    default: () => '',
    description:
      'The previous TIDINGS_SECRET_KEY while rotating: links it signed still work, new ones are signed with the new key; ' +
      '`generated` keeps the key generated in the database verifying after TIDINGS_SECRET_KEY is first set (without it, that key no longer verifies)',
    secret: 'value',
  },
  linkTtlDays: {
    env: 'TIDINGS_LINK_TTL_DAYS',
    default: () => 30,
    description: 'Days a double opt-in confirmation link and an unsubscribe link work after they were sent',
  },
  contentUrl: {
    env: 'TIDINGS_CONTENT_URL',
    default: () => '',
    description: "Separate origin for customers' HTML (web version, archived copy), e.g. `https://content.example.net`; empty: the public URL",
  },
}

/** The host of the public URL when it can be a mail domain; `localhost` and IP addresses cannot. */
function mailDomainOf(publicUrl: string | undefined): string {
  let host = ''
  try {
    host = new URL(publicUrl ?? '').hostname
  } catch {
    // An invalid public URL is reported by its own setting.
  }
  return /^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$/i.test(host) ? host.toLowerCase() : 'localhost.localdomain'
}
