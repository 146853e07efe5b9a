// Builds the one frozen Config: defaults, then a JSON config file, then the environment, then CLI flags.
// This is the only module that reads process.env.
import { readFileSync } from 'node:fs'
import { Value } from '@sinclair/typebox/value'
import { parseCurrencyRates } from '../lib/currency-rates.js'
import { rsaPrivateKeyOf } from '../lib/pem.js'
import { parseTrustProxy } from '../lib/trust-proxy.js'
import { parsePriceTable, parseSmsPrices } from '../lib/sms-prices.js'
import { ConfigSchema, SETTINGS, type Config } from './schema.js'

export interface LoadOptions {
  env?: NodeJS.ProcessEnv
  file?: string
  overrides?: Partial<Config>
}

type Key = keyof Config
const KEYS = Object.keys(SETTINGS) as Key[]

export function loadConfig(options: LoadOptions = {}): Readonly<Config> {
  const env = options.env ?? process.env
  const file = options.file ?? env.TIDINGS_CONFIG
  const layered: Record<string, unknown> = {
    ...(file ? readConfigFile(file) : {}),
    ...fromEnv(env),
    ...withoutUndefined(options.overrides ?? {}),
  }
  for (const key of KEYS) {
    if (layered[key] === undefined) layered[key] = SETTINGS[key].default(layered as Partial<Config>)
  }
  layered.trustProxy = readTrustProxy(layered.trustProxy)
  const converted = Value.Convert(ConfigSchema, layered)
  const errors = [...Value.Errors(ConfigSchema, converted)]
  if (errors.length > 0) {
    const lines = errors.map((e) => `${e.path.slice(1) || '(root)'} (${settingEnv(e.path)}): ${e.message}`)
    throw new Error(`invalid configuration:\n  ${lines.join('\n  ')}`)
  }
  const config = Value.Clean(ConfigSchema, converted) as Config
  checkSetting('currencyRates', () => parseCurrencyRates(config.currencyRates))
  checkSetting('smsPrices', () => parseSmsPrices(config.smsPrices))
  checkSetting('viberPrices', () => parsePriceTable(config.viberPrices, 'TIDINGS_VIBER_PRICES'))
  checkViberProvider(config)
  checkSecretKeys(config)
  checkSmppUrl(config.smppUrl)
  return Object.freeze(config)
}

/**
 * A setting whose text passes the schema but not its own parser (a rate of 0, a currency given twice, a price
 * entry that is not KEY=PRICE) refuses to start, naming the setting, rather than failing at first use.
 */
function checkSetting(key: keyof typeof SETTINGS, parse: () => unknown): void {
  try {
    parse()
  } catch (err) {
    throw new Error(`invalid configuration:\n  ${key} (${SETTINGS[key].env}): ${(err as Error).message}`)
  }
}

/** An SMPP URL without a system_id or a host would fail every bind; refuse it at start (without echoing its password). */
function checkSmppUrl(url: string): void {
  if (url === '') return
  let parsed: URL | undefined
  try {
    parsed = new URL(url)
  } catch {
    // reported below
  }
  if (!parsed?.hostname || !parsed.username) {
    throw new Error(`invalid configuration:\n  smppUrl (${SETTINGS.smppUrl.env}): expected smpp://system_id:password@host:port (ssmpp:// for TLS)`)
  }
}

/** Vonage names applications by UUID (Dashboard → Applications); anything else is another value pasted there. */
const APPLICATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * A provider without its credentials would fail every send, one without its secret every callback: refuse to start.
 * Sending takes an application (its id and private key, a JWT; preferred when both are set) or the account's
 * `API_KEY:API_SECRET` (Basic). Callbacks are signed with the account's signature secret either way and name the
 * account's API key, so that key is needed too: the token's, or TIDINGS_VIBER_API_KEY.
 */
function checkViberProvider(config: Config): void {
  if (config.viberUrl === '') return
  const line = (key: keyof typeof SETTINGS, text: string) => `${key} (${SETTINGS[key].env}): ${text}`
  const application = config.viberApplicationId !== '' || config.viberPrivateKey !== ''
  const problems: (string | false)[] = [
    config.viberToken !== '' && !/^[^:]+:.+$/.test(config.viberToken) && line('viberToken', 'expected API_KEY:API_SECRET'),
    !application && config.viberToken === '' && line('viberToken', `expected API_KEY:API_SECRET, or an application: ${SETTINGS.viberApplicationId.env} and ${SETTINGS.viberPrivateKey.env}`),
    application && !APPLICATION_ID.test(config.viberApplicationId) && line('viberApplicationId', config.viberApplicationId === '' ? `required with ${SETTINGS.viberPrivateKey.env}` : 'expected the application\'s id, a UUID'),
    application && privateKeyProblem(config.viberPrivateKey),
    config.viberApiKey === '' && line('viberApiKey', `required with an application when ${SETTINGS.viberToken.env} is not set (callbacks name the account's API key)`),
    // With Basic, the token's key sends, and its callbacks name that key: another one would refuse them all.
    !application && config.viberToken !== '' && config.viberApiKey !== config.viberToken.split(':')[0] && line('viberApiKey', `differs from the API key of ${SETTINGS.viberToken.env}, which sends`),
    config.viberSignatureSecret === '' && line('viberSignatureSecret', `required with ${SETTINGS.viberUrl.env}`),
  ]
  const missing = problems.filter((problem): problem is string => typeof problem === 'string')
  if (missing.length > 0) throw new Error(`invalid configuration:\n  ${missing.join('\n  ')}`)
}

/** Why the application's private key cannot sign RS256 JWTs (never showing it), or false when it can. */
function privateKeyProblem(value: string): string | false {
  const line = (text: string) => `viberPrivateKey (${SETTINGS.viberPrivateKey.env}): ${text}`
  if (value === '') return line(`required with ${SETTINGS.viberApplicationId.env}: the application's private key, PEM text or the path of a PEM file`)
  try {
    rsaPrivateKeyOf(value)
    return false
  } catch (err) {
    return line((err as Error).message)
  }
}

/** Text, JSON or code to false, a hop count or a list; anything else refuses to start (lib/trust-proxy.ts). */
function readTrustProxy(value: unknown): unknown {
  try {
    return parseTrustProxy(value)
  } catch (err) {
    throw new Error(`invalid configuration:\n  trustProxy (${SETTINGS.trustProxy.env}): ${(err as Error).message}`)
  }
}

/** HMAC-SHA256 keys shorter than its 32-byte output weaken it (RFC 2104 §3); a guessable short one lets anyone forge links. */
const MIN_SECRET_KEY_BYTES = 32

/**
 * A configured signing key that is too short is refused at start, not found out when links are forged. The old key
 * (TIDINGS_SECRET_KEY_OLD) is not checked: it only verifies during a rotation, and refusing a short one would leave
 * an install that has a short key no way to rotate away from it without breaking the links already sent.
 */
function checkSecretKeys(config: Config): void {
  const bytes = Buffer.byteLength(config.secretKey, 'utf8')
  if (bytes > 0 && bytes < MIN_SECRET_KEY_BYTES) {
    throw new Error(
      `invalid configuration:\n  secretKey (${SETTINGS.secretKey.env}): must be at least ${MIN_SECRET_KEY_BYTES} bytes, is ${bytes}; ` +
        'make one with `openssl rand -base64 32`, or leave TIDINGS_SECRET_KEY empty to have one generated',
    )
  }
}

function fromEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {}
  for (const key of KEYS) {
    const value = env[SETTINGS[key].env]
    if (value !== undefined && value !== '') out[key] = value
  }
  return out
}

function readConfigFile(path: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'))
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`config file ${path} must hold a JSON object`)
  }
  return parsed as Record<string, unknown>
}

function withoutUndefined(o: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))
}

function settingEnv(path: string): string {
  const key = path.slice(1) as Key
  return SETTINGS[key]?.env ?? 'config'
}
