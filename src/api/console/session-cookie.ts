// The console session's cookie. HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it),
// Path=/ (the console calls the API's own routes), no Max-Age (gone when the browser closes; the server's idle and
// absolute expiries bound it anyway). Over https it is Secure and named with the __Host- prefix, which browsers
// accept only from a secure origin, with Path=/ and no Domain: a sibling subdomain cannot plant or shadow it.
import type { Config } from '../../config/schema.js'

export interface SessionCookie {
  name: string
  /** Set-Cookie for a new session. */
  set(sessionId: string): string
  /** Set-Cookie that makes the browser forget it. */
  clear(): string
  /** The session id in a Cookie header, or undefined. */
  read(header: string | undefined): string | undefined
}

/** Session ids are 43 base64url characters (lib/secrets.ts randomSecret(32)); anything else is not ours. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/

export function sessionCookie(config: Pick<Config, 'publicUrl'>): SessionCookie {
  const secure = new URL(config.publicUrl).protocol === 'https:'
  const name = secure ? '__Host-tidings_console' : 'tidings_console'
  const attributes = `Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`
  return {
    name,
    set: (sessionId) => `${name}=${sessionId}; ${attributes}`,
    clear: () => `${name}=; Max-Age=0; ${attributes}`,
    read(header) {
      if (!header) return undefined
      for (const pair of header.split(';')) {
        const at = pair.indexOf('=')
        if (at > 0 && pair.slice(0, at).trim() === name) {
          const value = pair.slice(at + 1).trim()
          return SESSION_ID.test(value) ? value : undefined
        }
      }
      return undefined
    },
  }
}
