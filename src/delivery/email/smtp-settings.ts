// TIDINGS_SMTP_URL read into the SMTP pool's settings: smtp:// (STARTTLS when the relay offers it) or smtps://
// (TLS from the start), the user and password, and the options nodemailer read from the query, under their
// nodemailer names: maxConnections (10), maxMessages (no limit), requireTLS, ignoreTLS, opportunisticTLS,
// secure, name, localAddress, authMethod (PLAIN or LOGIN), connectionTimeout, greetingTimeout, socketTimeout
// (ms) and tls.* (passed to tls.connect, e.g. tls.rejectUnauthorized=false for a relay with its own CA).
import type { ConnectionOptions } from 'node:tls'
import type { PoolOptions } from './smtp-pool.js'

/** nodemailer's defaults (milliseconds). */
const CONNECTION_TIMEOUT_MS = 2 * 60_000
const GREETING_TIMEOUT_MS = 30_000
const SOCKET_TIMEOUT_MS = 10 * 60_000

export function poolOptionsOf(relayUrl: string, options: { maxConnections?: number; allowPlaintextAuth?: boolean } = {}): PoolOptions {
  const url = new URL(relayUrl)
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`TIDINGS_SMTP_URL must be smtp:// or smtps://, not ${url.protocol}`)
  const query = url.searchParams
  const flag = (name: string) => query.get(name) === 'true'
  const number = (name: string, fallback: number) => {
    const value = query.get(name)
    if (value === null) return fallback
    const parsed = value === 'Infinity' ? Infinity : Number(value)
    if (!(parsed > 0)) throw new Error(`TIDINGS_SMTP_URL: ${name} must be a positive number, not ${JSON.stringify(value)}`)
    return parsed
  }
  const secure = query.has('secure') ? flag('secure') : url.protocol === 'smtps:'
  const user = decodeURIComponent(url.username)
  const pass = decodeURIComponent(url.password)
  const hasCredentials = user !== '' || pass !== ''
  const authMethod = query.get('authMethod')?.toUpperCase()
  if (authMethod !== undefined && authMethod !== 'PLAIN' && authMethod !== 'LOGIN') throw new Error(`TIDINGS_SMTP_URL: authMethod must be PLAIN or LOGIN, not ${authMethod}`)
  // Without it, a relay (or a man in the middle) that does not offer STARTTLS gets the password and the mail in
  // clear. requireTLS wins over ignoreTLS and opportunisticTLS, as in nodemailer.
  const requireTLS = flag('requireTLS') || (!secure && hasCredentials && !options.allowPlaintextAuth)
  const tls: ConnectionOptions = {}
  for (const [name, value] of query) {
    if (!name.startsWith('tls.')) continue
    ;(tls as Record<string, unknown>)[name.slice(4)] = value === 'true' ? true : value === 'false' ? false : value
  }
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    starttls: requireTLS ? 'required' : flag('ignoreTLS') ? 'never' : 'offered',
    opportunisticTLS: flag('opportunisticTLS'),
    name: query.get('name') ?? undefined,
    localAddress: query.get('localAddress') ?? undefined,
    auth: hasCredentials ? { user, pass, method: authMethod as 'PLAIN' | 'LOGIN' | undefined } : undefined,
    tls,
    connectionTimeoutMs: number('connectionTimeout', CONNECTION_TIMEOUT_MS),
    greetingTimeoutMs: number('greetingTimeout', GREETING_TIMEOUT_MS),
    socketTimeoutMs: number('socketTimeout', SOCKET_TIMEOUT_MS),
    maxConnections: Math.floor(number('maxConnections', options.maxConnections ?? 10)),
    maxMessages: number('maxMessages', Infinity),
  }
}
