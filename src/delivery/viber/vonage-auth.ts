// How the Vonage channel proves who it is, one of the two ways the Messages API takes
// (https://developer.vonage.com/en/getting-started/concepts/authentication):
// - Basic: the account's `API_KEY:API_SECRET`;
// - an application's JWT: RS256 over `application_id`, `iat`, `jti`, `exp`, signed with the application's private
//   key, as Vonage's own SDK makes them (@vonage/jwt tokenGenerate: exp = iat + 900 s, jti a random UUID, header
//   `{typ: 'JWT', alg: 'RS256'}`). Vonage recommends it: the application's webhook URLs apply, not the account's
//   (https://developer.vonage.com/messages/code-snippets/configure-webhooks).
import { randomUUID, type KeyObject } from 'node:crypto'
import { lazyImport } from '../../lib/lazy-require.js'

// jose is loaded by the first token signed, not by every process at start.
const jose = lazyImport(() => import('jose'))

export interface VonageAuth {
  /** The `Authorization` header of the next request. */
  header(): string | Promise<string>
  /** What an error reason must never show, besides the header itself (the caller adds that). */
  secrets: readonly string[]
}

export interface VonageApplication {
  /** The application's id (a UUID, Dashboard → Applications). */
  applicationId: string
  /** Its RSA private key (lib/pem.ts rsaPrivateKeyOf). */
  privateKey: KeyObject
}

export function basicAuth(credentials: string): VonageAuth {
  const colon = credentials.indexOf(':')
  const header = `Basic ${Buffer.from(credentials).toString('base64')}`
  return { header: () => header, secrets: colon < 0 ? [credentials] : [credentials, credentials.slice(0, colon), credentials.slice(colon + 1)] }
}

/** Vonage's SDK default, and the lifetime Vonage gives a token without `exp`. */
export const TOKEN_TTL_SECONDS = 15 * 60
/** A token is replaced once less than this is left of it, so no request goes out with one about to expire. */
export const RENEW_BEFORE_SECONDS = 5 * 60

/**
 * Bearer JWTs of `application`, one shared by every request until RENEW_BEFORE_SECONDS before it expires: an RS256
 * signature took 0.45 ms of CPU (jose, 2048-bit key, measured on 2 cores; 45 s for a 100,000-number campaign),
 * the kept header 0.2 µs. Vonage takes the same token for any number of requests until its `exp` (up to 24 h after
 * `iat`): "How long is my JSON Web Token valid for?", https://api.support.vonage.com/hc/en-us/articles/360000958407.
 * Concurrent requests at renewal share the one token being signed.
 */
export function applicationAuth(application: VonageApplication, now: () => number = Date.now): VonageAuth {
  let current: { header: Promise<string>; renewAt: number } | undefined
  const mint = async (issuedAt: number): Promise<string> =>
    new (await jose()).SignJWT({ application_id: application.applicationId })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuedAt(issuedAt)
      .setJti(randomUUID())
      .setExpirationTime(issuedAt + TOKEN_TTL_SECONDS)
      .sign(application.privateKey)
      .then((token) => `Bearer ${token}`)
  return {
    header: () => {
      const at = now()
      if (!current || at >= current.renewAt) {
        const issuedAt = Math.floor(at / 1000)
        const minted = { header: mint(issuedAt), renewAt: (issuedAt + TOKEN_TTL_SECONDS - RENEW_BEFORE_SECONDS) * 1000 }
        // A token that could not be signed is not kept: the next request tries again.
        minted.header.catch(() => {
          if (current === minted) current = undefined
        })
        current = minted
      }
      return current.header
    },
    secrets: [],
  }
}
