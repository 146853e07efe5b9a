// How every public HTML page is answered: our own pages (unsubscribe, double opt-in confirmation) and customers'
// HTML (web version, archived copy). Customers' HTML is any tenant's markup shown on our origin, so its policy
// runs no script, loads no base URL, posts no form and cannot be framed; `sandbox` also gives the page an
// opaque origin, so even a policy bypass reads no cookie or storage of ours. Our own pages may post only their
// form, to their own URL. No page sends its URL (which holds the link's token) as a Referer.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../../config/schema.js'

const FRAMING = ["base-uri 'none'", "frame-ancestors 'none'"]

/**
 * Customers' HTML: images, styles and fonts from anywhere (emails load them from their own hosts), nothing else.
 * Popups are allowed, and leave the sandbox, so a `target="_blank"` link opens its site as it is.
 */
const CUSTOMER_HTML = ["default-src 'none'", 'img-src * data:', "style-src 'unsafe-inline' *", 'font-src *', ...FRAMING, "form-action 'none'", 'sandbox allow-popups allow-popups-to-escape-sandbox'].join('; ')

/** Our own page; with `formAction`, its form may post to that URL only. */
function ownPagePolicy(formAction: string | undefined): string {
  const action = formAction === undefined ? ["form-action 'none'", 'sandbox'] : [`form-action ${sourceOf(formAction)}`, 'sandbox allow-forms']
  return ["default-src 'none'", "style-src 'unsafe-inline'", ...FRAMING, ...action].join('; ')
}

/** A CSP source expression for exactly this URL (origin and path; percent-encoded, so no `;` or space). */
function sourceOf(url: string): string {
  const parsed = new URL(url)
  return `${parsed.origin}${parsed.pathname}`
}

export type PageKind = { customerHtml: true } | { customerHtml?: false; formAction?: string }

export function sendPage(reply: FastifyReply, status: number, html: string, kind: PageKind = {}): FastifyReply {
  return reply
    .status(status)
    .header('cache-control', 'no-store')
    .header('content-security-policy', kind.customerHtml ? CUSTOMER_HTML : ownPagePolicy(kind.formAction))
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('x-robots-tag', 'noindex')
    .type('text/html; charset=utf-8')
    .send(html)
}

/**
 * Where a request for customers' HTML belongs when TIDINGS_CONTENT_URL names another origin and the request came
 * to this one (a link sent before it was set): the same path there. Undefined when it is already there.
 */
export function contentOriginRedirect(config: Pick<Config, 'contentUrl'>, request: FastifyRequest): string | undefined {
  if (!config.contentUrl) return undefined
  const content = new URL(config.contentUrl)
  let host: string
  try {
    host = new URL(`${content.protocol}//${request.host}`).host
  } catch {
    host = ''
  }
  if (host === content.host) return undefined
  return `${content.origin}${content.pathname.replace(/\/+$/, '')}${request.url}`
}
