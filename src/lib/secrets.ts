// Credentials: random secrets, scrypt hashes for client secrets, SHA-256 digests for high-entropy tokens.
import * as crypto from 'node:crypto'
import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32 }

/** A URL-safe random string carrying `bytes` bytes of entropy. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

/**
 * Access tokens and API keys carry 256 random bits, so a fast digest is enough to store them safely. Every API
 * call digests its bearer token: crypto.hash (Node 20.12+) takes 0.8 µs where createHash takes 2.5.
 */
export const digestToken: (token: string) => string =
  typeof crypto.hash === 'function' ? (token) => crypto.hash('sha256', token, 'base64url') : (token) => createHash('sha256').update(token).digest('base64url')

/** Hashes a client secret with scrypt; the result holds its parameters and salt. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scryptAsync(secret, salt, SCRYPT.keyLength, SCRYPT)
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** Checks a secret against a stored scrypt hash in constant time. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, expected] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !expected) return false
  const want = Buffer.from(expected, 'base64url')
  const key = await scryptAsync(secret, Buffer.from(salt, 'base64url'), want.length, { N: Number(n), r: Number(r), p: Number(p) })
  return timingSafeEqual(key, want)
}

/** A fixed hash to verify against when the client id is unknown, so timing does not reveal which ids exist. */
export const DECOY_SECRET_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'

let scryptInFlight = 0
let scryptPeak = 0

/** scrypt computations running now, and the most seen at once since the last reset (for tests and metrics). */
export const scryptGauge = {
  get inFlight(): number {
    return scryptInFlight
  },
  get peak(): number {
    return scryptPeak
  },
  resetPeak(): void {
    scryptPeak = scryptInFlight
  },
}

function scryptAsync(secret: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  scryptPeak = Math.max(scryptPeak, ++scryptInFlight)
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, keyLength, { ...options, maxmem: 64 * 1024 * 1024 }, (err, key) => {
      scryptInFlight--
      if (err) reject(err)
      else resolve(key)
    })
  })
}
