// Signed tokens for public links (double opt-in confirmation, later tracking): `payload.mac`, both base64url,
// where mac = HMAC-SHA256(key, purpose NUL payload). The purpose keeps a token made for one use from being
// accepted by another; the payload is readable by anyone, so it must hold nothing secret.
import { createHmac, timingSafeEqual } from 'node:crypto'

/** HMAC-SHA256 of `payload` for `purpose`, base64url (also the stored form of one-time codes). */
export function macOf(key: Buffer, purpose: string, payload: string | Buffer): string {
  return createHmac('sha256', key).update(purpose).update('\0').update(payload).digest('base64url')
}

export function signToken(key: Buffer, purpose: string, payload: string): string {
  return `${Buffer.from(payload, 'utf8').toString('base64url')}.${macOf(key, purpose, payload)}`
}

/** The payload of a token signed with `key` for `purpose`; undefined for any other token. */
export function verifyToken(key: Buffer, purpose: string, token: string): string | undefined {
  const dot = token.indexOf('.')
  if (dot < 0) return undefined
  const encoded = token.slice(0, dot)
  const payload = Buffer.from(encoded, 'base64url')
  // Base64 decoding skips stray characters and ignores trailing bits: accept only the canonical spelling.
  if (payload.toString('base64url') !== encoded) return undefined
  return macMatches(macOf(key, purpose, payload), token.slice(dot + 1)) ? payload.toString('utf8') : undefined
}

/** Compares two MACs in constant time. */
export function macMatches(expected: string, given: string): boolean {
  const a = Buffer.from(expected)
  const b = Buffer.from(given)
  return a.length === b.length && timingSafeEqual(a, b)
}
