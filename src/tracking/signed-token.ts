// Signed tokens for public links (double opt-in confirmation, tracking): `payload.mac`, both base64url, where
// mac = HMAC-SHA256(key, purpose NUL payload). The purpose keeps a token made for one use from being accepted
// by another; the payload is readable by anyone, so it must hold nothing secret. Tokens are verified against
// every accepted key, newest first, so a key can be rotated without breaking the links already sent.
import { createHmac, timingSafeEqual } from 'node:crypto'

/** HMAC-SHA256 of `payload` for `purpose`, base64url (also the stored form of one-time codes). */
export function macOf(key: Buffer, purpose: string, payload: string | Buffer): string {
  return createHmac('sha256', key).update(purpose).update('\0').update(payload).digest('base64url')
}

export function signToken(key: Buffer, purpose: string, payload: string): string {
  return `${Buffer.from(payload, 'utf8').toString('base64url')}.${macOf(key, purpose, payload)}`
}

/** The payload of a token signed with one of `keys` for `purpose`; undefined for any other token. */
export function verifyToken(keys: readonly Buffer[], purpose: string, token: string): string | undefined {
  const dot = token.indexOf('.')
  if (dot < 0) return undefined
  const encoded = token.slice(0, dot)
  const payload = Buffer.from(encoded, 'base64url')
  // Base64 decoding skips stray characters and ignores trailing bits: accept only the canonical spelling.
  if (payload.toString('base64url') !== encoded) return undefined
  const mac = token.slice(dot + 1)
  return keys.some((key) => macMatches(macOf(key, purpose, payload), mac)) ? payload.toString('utf8') : undefined
}

/** Whether `mac` is the MAC of `payload` for `purpose` under one of `keys` (one-time codes stored as MACs). */
export function macMatchesAny(keys: readonly Buffer[], purpose: string, payload: string, mac: string): boolean {
  return keys.some((key) => macMatches(macOf(key, purpose, payload), mac))
}

/** Compares two MACs in constant time. */
export function macMatches(expected: string, given: string): boolean {
  const a = Buffer.from(expected)
  const b = Buffer.from(given)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Separates the payload from the issue time; `@` never occurs in the payloads that carry one (ids). */
const ISSUED_AT = '@'

/** A token that also carries when it was issued (epoch seconds, signed with the rest), so it can expire. */
export function signIssuedToken(key: Buffer, purpose: string, payload: string, issuedAtMs: number): string {
  return signToken(key, purpose, `${payload}${ISSUED_AT}${Math.floor(issuedAtMs / 1000)}`)
}

export interface IssuedPayload {
  payload: string
  /** Epoch milliseconds; undefined for a token signed before tokens carried an issue time. */
  issuedAtMs: number | undefined
}

/** The payload and issue time of a token made by signIssuedToken (or by signToken before it existed). */
export function verifyIssuedToken(keys: readonly Buffer[], purpose: string, token: string): IssuedPayload | undefined {
  const signed = verifyToken(keys, purpose, token)
  if (signed === undefined) return undefined
  const at = signed.lastIndexOf(ISSUED_AT)
  if (at < 0) return { payload: signed, issuedAtMs: undefined }
  const seconds = signed.slice(at + 1)
  return /^\d{1,12}$/.test(seconds) ? { payload: signed.slice(0, at), issuedAtMs: Number(seconds) * 1000 } : undefined
}
