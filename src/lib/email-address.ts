// Email addresses as the service stores them: trimmed, syntax-checked, the domain lower-cased (domains are
// case-insensitive; the local part is the mailbox owner's and is kept as given, as RFC 5321 says).
import { isEmail } from './validator-parts.js'

/**
 * Plain ASCII addresses: a dot-atom local part of at most 64 characters and a host name of letter-digit-
 * hyphen labels ending in an alphabetic top-level domain. Everything this accepts, validator's isEmail with
 * our options accepts too (test/unit/lib/email-address.test.ts); it is ~30 times faster, which matters when
 * a million contacts are imported.
 */
const COMMON_ADDRESS =
  /^(?=[^@]{1,64}@)[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?=.{4,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/

const OPTIONS = { allow_utf8_local_part: true, require_tld: true, allow_ip_domain: false }

/** The stored form of an address, or undefined when it is not a valid address. */
export function normalizeEmail(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined
  const trimmed = raw.trim()
  if (trimmed.length > 254) return undefined
  if (!COMMON_ADDRESS.test(trimmed) && !isEmail(trimmed, OPTIONS)) return undefined
  const at = trimmed.lastIndexOf('@')
  return trimmed.slice(0, at + 1) + trimmed.slice(at + 1).toLowerCase()
}

/** The valid addresses among `raw`, in stored form, each once, in the order first given. */
export function distinctAddresses(raw: readonly unknown[]): string[] {
  return [...new Set(raw.map(normalizeEmail).filter((e): e is string => e !== undefined))]
}

/** validator's check alone, for the test that keeps the fast path a subset of it. */
export function isEmailBySpec(address: string): boolean {
  return isEmail(address, OPTIONS)
}
