// The content of a campaign's emails. What is the same for every recipient is prepared once per campaign
// (tracked links and the open pixel put in, subject, HTML and text compiled, attachments decoded); each
// message is then a few template runs with the recipient's variables and its tracking URLs.
import { compileTemplate, type Render } from '../../lib/render.js'
import { textFromHtml } from '../../lib/html-text.js'
import { linkMarkerVariables, prepareTrackedHtml } from '../../tracking/tracked-html.js'
import type { CampaignRow } from '../../storage/repos/campaigns.js'
import type { BuiltEmail, EmailParts } from '../channel.js'
import { buildMime, prepareMimeFrame, type MimeFrame } from './mime.js'

export interface PreparedCampaign {
  campaignId: number
  accountId: number
  /** The links of the HTML in order, as a click token's index refers to them (UTM tags included). */
  links: string[]
  subject: Render
  html: Render
  text: Render
  amp: Render | undefined
  from: { email: string; name: string }
  attachments: { filename: string; content: Buffer }[]
  listId: number | undefined
  /** The MIME parts every message shares. */
  mime: MimeFrame
}

/** The URLs of one message's tracking endpoints (services/tracking-links.ts). */
export interface MessageLinks {
  open: string
  click: (index: number) => string
  unsubscribe: string
  /** The archived copy of the campaign (permalink). */
  view: string
}

/** Shown in templates without `{{unsubscribe_url}}`: every campaign email must let its reader leave. */
const UNSUBSCRIBE_FOOTER =
  '<p style="font:12px/1.5 Arial,sans-serif;color:#888;text-align:center;margin:24px 0">' +
  '<a href="{{{unsubscribe_url}}}" data-tidings-notrack style="color:#888">Unsubscribe</a></p>'

export function prepareCampaign(campaign: CampaignRow): PreparedCampaign | Error {
  const withFooter = /\{\{\{?\s*unsubscribe_url\s*\}?\}\}/.test(campaign.body) ? campaign.body : appendToBody(campaign.body, UNSUBSCRIBE_FOOTER)
  const tracked = prepareTrackedHtml(withFooter, {
    trackClicks: campaign.trackClicks,
    trackOpens: campaign.trackOpens,
    utmCampaign: campaign.utmCampaign ?? undefined,
  })
  const subject = compileTemplate(campaign.subject, { escape: false })
  const html = compileTemplate(tracked.html)
  const text = compileTemplate(textFromHtml(tracked.html), { escape: false })
  const amp = campaign.bodyAmp === null ? undefined : compileTemplate(campaign.bodyAmp)
  for (const [part, compiled] of [['subject', subject], ['body', html], ['text', text], ['body_amp', amp]] as const) {
    if (compiled instanceof Error) return new Error(`the campaign's ${part} is not a valid template: ${compiled.message}`)
  }
  const from = { email: campaign.senderEmail, name: campaign.senderName }
  const attachments = campaign.attachments.map((a) => ({ filename: a.filename, content: Buffer.from(a.content, 'base64') }))
  return {
    campaignId: campaign.id,
    accountId: campaign.accountId,
    links: tracked.links,
    subject: subject as Render,
    html: html as Render,
    text: text as Render,
    amp: amp as Render | undefined,
    from,
    attachments,
    listId: campaign.listIds[0],
    mime: prepareMimeFrame(from, attachments),
  }
}

export interface MessageAddressing {
  to: string
  variables: Record<string, unknown>
  links: MessageLinks
  /** Envelope sender: the message's VERP bounce address. */
  returnPath: string
  /** Mail to this address unsubscribes the recipient (offered in List-Unsubscribe next to the URL). */
  unsubscribeAddress?: string
  messageId: string
  /** List-Id value, e.g. `<l12.a3.example.com>` */
  listIdHeader: string
}

export function renderMessage(prepared: PreparedCampaign, m: MessageAddressing): EmailParts {
  const variables = variablesOf(prepared, m)
  return {
    from: prepared.from,
    to: m.to,
    subject: prepared.subject(variables),
    html: prepared.html(variables),
    text: prepared.text(variables),
    amp: prepared.amp?.(variables),
    attachments: prepared.attachments,
    returnPath: m.returnPath,
    messageId: m.messageId,
    headers: {
      // RFC 2369: mail programs take the first URI they can use; the https one comes first for RFC 8058.
      'List-Unsubscribe': m.unsubscribeAddress ? `<${m.links.unsubscribe}>, <mailto:${m.unsubscribeAddress}?subject=unsubscribe>` : `<${m.links.unsubscribe}>`,
      // RFC 8058: mailbox providers unsubscribe with one POST, no page to visit.
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'List-Id': m.listIdHeader,
      Precedence: 'bulk',
    },
  }
}

/**
 * The message as renderMessage makes it, built as SMTP data: what the email channel sends. Its rendered parts
 * are dropped here, not held while it waits for the relay: ~12 KB a message that would outlive young-generation
 * collections and be promoted to the old one (the RSS of a long campaign).
 */
export function renderCampaignEmail(prepared: PreparedCampaign, m: MessageAddressing): BuiltEmail {
  const email = renderMessage(prepared, m)
  return { from: email.from, to: email.to, returnPath: email.returnPath, mime: buildMime(prepared.mime, email, new Date()) }
}

/**
 * What a message's templates see: the recipient's variables, then ours (which win): the address, the
 * unsubscribe and archive links, the open pixel and the click-tracked links. Copied key by key: an object
 * spread (`{ ...variables, ...links }`) of this many keys made V8 keep every message's copy past two
 * young-generation collections, ~4 MB promoted to the old generation per collection, 3 times slower
 * (docs/benchmarks.md).
 */
function variablesOf(prepared: PreparedCampaign, m: MessageAddressing): Record<string, unknown> {
  const variables: Record<string, unknown> = {}
  for (const name of Object.keys(m.variables)) {
    // A stored variable may be named __proto__ (JSON.parse makes it an own property): kept as one, as a spread
    // would, rather than set as the object's prototype.
    if (name === '__proto__') Object.defineProperty(variables, name, { value: m.variables[name], enumerable: true, writable: true, configurable: true })
    else variables[name] = m.variables[name]
  }
  variables.email = m.to
  variables.unsubscribe_url = m.links.unsubscribe
  variables.permalink = m.links.view
  variables.__tidings_open = m.links.open
  const links = linkMarkerVariables(prepared.links.map((_, i) => m.links.click(i)))
  for (const name of Object.keys(links)) variables[name] = links[name]
  return variables
}

function appendToBody(html: string, fragment: string): string {
  const end = html.search(/<\/body\s*>/i)
  return end < 0 ? html + fragment : html.slice(0, end) + fragment + html.slice(end)
}
