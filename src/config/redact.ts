// The effective configuration for display (`tidings config`), with every secret hidden. The rule lives on the
// settings table, not in a list here: a setting marked `secret: 'value'`, or named like a secret (…Key,
// …Token, secret…, password…), is hidden whole; in any string that holds a URL or `name=value` pairs, the
// password and every parameter named like a credential are hidden, whatever the setting.
import type { Config } from './schema.js'
import { SETTINGS, type SettingInfo } from './schema.js'

export const MASK = '*****'

/** Setting names that say the value is a secret: secretKey, secretKeyOld, dkimPrivateKey, a future viberToken. */
const SECRET_NAME = /secret|passw(or)?d|passphrase|credential|token$|key$/i
/** Parameter names (URL query, `name=value` strings) whose value is a credential: `?password=`, `api_key=`… */
const SECRET_PARAMETER = /pass|pwd|secret|token|key|auth|credential|signature/i
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i

/** How a setting is hidden: whole, or only the credentials inside it. */
export function secrecyOf(name: string, info: Pick<SettingInfo, 'secret'>): 'value' | 'credentials' {
  return info.secret ?? (SECRET_NAME.test(name) ? 'value' : 'credentials')
}

/** The configuration with secrets hidden; `settings` is the table that says which settings are secret. */
export function redactConfig(config: Config, settings: Record<string, Pick<SettingInfo, 'secret'>> = SETTINGS): Record<string, unknown> {
  const shown: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(config)) {
    if (typeof value !== 'string') shown[name] = value
    else if (secrecyOf(name, settings[name] ?? {}) === 'value') shown[name] = value === '' ? '' : MASK
    else shown[name] = withoutCredentials(value)
  }
  return shown
}

/**
 * A URL with its password and credential parameters hidden (a user name alone is hidden too: `https://TOKEN@host`
 * is how some services take a token); other text with its `password=…` pairs hidden.
 */
export function withoutCredentials(value: string): string {
  if (!URL_LIKE.test(value)) return withoutSecretPairs(value)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return MASK // its parts cannot be told apart: hide all of it
  }
  const secretParameters = [...url.searchParams.keys()].filter((name) => SECRET_PARAMETER.test(name))
  if (!url.username && !url.password && secretParameters.length === 0) return value
  if (url.password) url.password = MASK
  else if (url.username) url.username = MASK
  for (const name of secretParameters) url.searchParams.set(name, MASK)
  return url.toString()
}

/** libpq-style `host=db password=x` and `a=1;Password=x` strings. */
function withoutSecretPairs(value: string): string {
  return value.replace(/([A-Za-z_][\w.-]*)\s*=\s*('[^']*'|"[^"]*"|[^\s;&]*)/g, (pair, name: string) => (SECRET_PARAMETER.test(name) ? `${name}=${MASK}` : pair))
}
