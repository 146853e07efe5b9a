// Builds the one frozen Config: defaults, then a JSON config file, then the environment, then CLI flags.
// This is the only module that reads process.env.
import { readFileSync } from 'node:fs'
import { Value } from '@sinclair/typebox/value'
import { parseCurrencyRates } from '../lib/currency-rates.js'
import { parseTrustProxy } from '../lib/trust-proxy.js'
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
  checkCurrencyRates(config.currencyRates)
  return Object.freeze(config)
}

/** A rate of 0 or a currency given twice passes the pattern; refuse it at start, not at the first conversion. */
function checkCurrencyRates(text: string): void {
  try {
    parseCurrencyRates(text)
  } catch (err) {
    throw new Error(`invalid configuration:\n  currencyRates (${SETTINGS.currencyRates.env}): ${(err as Error).message}`)
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

/** The effective configuration for display, with secrets (passwords inside URLs) hidden. */
export function redactConfig(config: Config): Record<string, unknown> {
  const shown: Record<string, unknown> = {}
  for (const key of KEYS) {
    const value = config[key]
    shown[key] = SETTINGS[key].secret && typeof value === 'string' ? redactSecret(value) : value
  }
  return shown
}

function redactSecret(value: string): string {
  try {
    const url = new URL(value)
    if (url.password) url.password = '*****'
    return url.protocol === 'sqlite:' ? value : url.toString()
  } catch {
    return '*****'
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
