// Hardening headers of every console response (pages, assets, session calls). The policy allows only this origin's
// own scripts, styles, images, frames and API calls: no inline script or style, nothing from another origin, no framing
// (clickjacking of the sign-in or the "Delete" buttons), no plugins, no <base> rewriting, forms posting nowhere else.
import type { FastifyReply } from 'fastify'

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  // The outbox frames a message's body from its own route (api/routes/outbox-body.ts), which has its own policy.
  "frame-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  // Another site may not embed these responses (a <script src> of GET /console/session, say).
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  'x-robots-tag': 'noindex',
}

/** Sets the hardening headers; with `https`, HSTS too (a plain-http install must not pin itself to https). */
export function setConsoleHeaders(reply: FastifyReply, https: boolean): void {
  for (const [name, value] of Object.entries(HEADERS)) reply.header(name, value)
  if (https) reply.header('strict-transport-security', 'max-age=31536000')
}

/** The same as entries, for @fastify/static's setHeaders (called per file, before the reply's own headers are known). */
export function consoleHeaderEntries(https: boolean): [string, string][] {
  const entries = Object.entries(HEADERS)
  return https ? [...entries, ['strict-transport-security', 'max-age=31536000']] : entries
}
