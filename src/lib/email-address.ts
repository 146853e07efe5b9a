// Email addresses as the service stores them: trimmed, syntax-checked, the domain lower-cased (domains are
// case-insensitive; the local part is the mailbox owner's and is kept as given, as RFC 5321 says).
import validator from 'validator'

/** The stored form of an address, or undefined when it is not a valid address. */
export function normalizeEmail(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined
  const trimmed = raw.trim()
  if (trimmed.length > 254 || !validator.isEmail(trimmed, { allow_utf8_local_part: true, require_tld: true, allow_ip_domain: false })) {
    return undefined
  }
  const at = trimmed.lastIndexOf('@')
  return trimmed.slice(0, at + 1) + trimmed.slice(at + 1).toLowerCase()
}
