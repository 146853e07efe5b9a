// The public addresses that lead back to one message: tracking URLs (open pixel, clicks, unsubscribe, archived
// copy), the VERP bounce address, the mailto: unsubscribe address and the Message-ID. All carry the message id
// with an HMAC of it, so nobody can make one for another message (ARCHITECTURE.md "Tracking and events"); a
// tampered one resolves to nothing. Customers' HTML (web version, archived copy) is linked at
// TIDINGS_CONTENT_URL when set: another origin.
import { macOf, macMatches, signToken, verifyToken } from './signed-token.js'
import type { MessageAddressing, MessageLinks } from '../delivery/email/campaign-content.js'
import type { Config } from '../config/schema.js'

const PURPOSE = 'message'
const VERP_PURPOSE = 'verp'
const CAMPAIGN_PURPOSE = 'campaign'
const UNSUBSCRIBE_ADDRESS_PURPOSE = 'unsubscribe-address'
/**
 * Local parts of our addresses must survive mail programs and relays that lower-case them: hex, 16 digits
 * (64 bits) of the MAC. Each guess costs an SMTP round trip, so 2^64 of them are out of reach.
 */
const ADDRESS_MAC_LENGTH = 16

export function messageToken(key: Buffer, messageId: number): string {
  return signToken(key, PURPOSE, String(messageId))
}

const DAY_MS = 86_400_000

/**
 * Whether a link that changes consent (a double opt-in confirmation, an unsubscribe) issued at `issuedAtMs` has
 * expired: TIDINGS_LINK_TTL_DAYS later (30 by default, what CAN-SPAM asks an unsubscribe link to work for).
 */
export function isLinkExpired(config: Pick<Config, 'linkTtlDays'>, issuedAtMs: number, now: number): boolean {
  return now - issuedAtMs > config.linkTtlDays * DAY_MS
}

/** The message id a token was made for (with any accepted key); undefined for anything else. */
export function messageIdOfToken(keys: readonly Buffer[], token: string): number | undefined {
  const payload = verifyToken(keys, PURPOSE, token)
  return payload !== undefined && /^\d{1,15}$/.test(payload) ? Number(payload) : undefined
}

type LinkBases = Pick<Config, 'publicUrl' | 'contentUrl'>

/** Where customers' HTML is served: the content origin when one is configured. */
export function contentBase(config: LinkBases): string {
  return (config.contentUrl || config.publicUrl).replace(/\/+$/, '')
}

export function trackingLinks(config: LinkBases, token: string): MessageLinks {
  const base = `${config.publicUrl.replace(/\/+$/, '')}/t/${token}`
  return { open: `${base}/open.gif`, click: (index) => `${base}/c/${index}`, unsubscribe: `${base}/unsubscribe`, view: `${contentBase(config)}/t/${token}/view` }
}

/** The archived copy of a campaign (its `permalink`): the same for every reader, without anyone's variables. */
export function campaignPermalink(config: LinkBases, key: Buffer, campaignId: number): string {
  return `${contentBase(config)}/archive/${signToken(key, CAMPAIGN_PURPOSE, String(campaignId))}`
}

export function campaignIdOfToken(keys: readonly Buffer[], token: string): number | undefined {
  const payload = verifyToken(keys, CAMPAIGN_PURPOSE, token)
  return payload !== undefined && /^\d{1,15}$/.test(payload) ? Number(payload) : undefined
}

export function verpAddress(key: Buffer, messageId: number, domain: string): string {
  return `b-${messageId.toString(36)}-${addressMac(key, VERP_PURPOSE, messageId)}@${domain}`
}

/**
 * The message id of a VERP address made by verpAddress for `domain` (any case, any accepted key); undefined for
 * any other address. At another domain the address is not one we sent from: the listener refuses it, so a
 * connection cannot pile up recipients by writing one signed local part at any number of domains.
 */
export function messageIdOfVerp(keys: readonly Buffer[], address: string, domain: string): number | undefined {
  const match = /^b-([0-9a-z]{1,11})-([0-9a-f]{16})@(.+)$/i.exec(address.trim())
  if (!match || match[3]!.toLowerCase() !== domain.toLowerCase()) return undefined
  return signedId(keys, VERP_PURPOSE, match[1]!, match[2]!)
}

/**
 * The mailto: of a message's List-Unsubscribe (RFC 2369), for mail programs that do not do the RFC 8058
 * one-click POST: mail to it unsubscribes the recipient as that POST does. Signed apart from the VERP address,
 * which every relay on the way sees, so a Return-Path is no key to unsubscribe anyone.
 */
export function unsubscribeAddress(key: Buffer, messageId: number, domain: string): string {
  return `unsubscribe+${messageId.toString(36)}-${addressMac(key, UNSUBSCRIBE_ADDRESS_PURPOSE, messageId)}@${domain}`
}

/** The message id of an address made by unsubscribeAddress for `domain` (any case, any accepted key); undefined for any other. */
export function messageIdOfUnsubscribeAddress(keys: readonly Buffer[], address: string, domain: string): number | undefined {
  const match = /^unsubscribe\+([0-9a-z]{1,11})-([0-9a-f]{16})@(.+)$/i.exec(address.trim())
  if (!match || match[3]!.toLowerCase() !== domain.toLowerCase()) return undefined
  return signedId(keys, UNSUBSCRIBE_ADDRESS_PURPOSE, match[1]!, match[2]!)
}

function addressMac(key: Buffer, purpose: string, messageId: number): string {
  return Buffer.from(macOf(key, purpose, String(messageId)), 'base64url').toString('hex').slice(0, ADDRESS_MAC_LENGTH)
}

/** The id written in base 36 when `mac` is its MAC for `purpose` under one of the keys. */
function signedId(keys: readonly Buffer[], purpose: string, base36Id: string, mac: string): number | undefined {
  const id = parseInt(base36Id.toLowerCase(), 36)
  return Number.isSafeInteger(id) && keys.some((key) => macMatches(addressMac(key, purpose, id), mac.toLowerCase())) ? id : undefined
}

/** The same for every attempt of a message, so a receiver can tell a retried copy from a new email. */
export function messageIdHeader(messageId: number, campaignId: number, domain: string): string {
  return `${messageId}.${campaignId}.tidings@${domain}`
}

/** Everything that makes one campaign message its recipient's: variables, tracking URLs, VERP, ids. */
export function addressingOf(
  config: Pick<Config, 'publicUrl' | 'contentUrl' | 'bounceDomain' | 'bouncePort'>,
  key: Buffer,
  message: { id: number; campaignId: number; accountId: number; bookId: number | null; address: string; variables: string },
  fallbackListId: number | undefined,
): MessageAddressing {
  return {
    to: message.address,
    variables: JSON.parse(message.variables) as Record<string, unknown>,
    links: trackingLinks(config, messageToken(key, message.id)),
    returnPath: verpAddress(key, message.id, config.bounceDomain),
    // Only where the bounce listener runs to receive it (TIDINGS_BOUNCE_PORT; the bounce domain's MX).
    unsubscribeAddress: config.bouncePort > 0 ? unsubscribeAddress(key, message.id, config.bounceDomain) : undefined,
    messageId: messageIdHeader(message.id, message.campaignId, config.bounceDomain),
    listIdHeader: `<l${message.bookId ?? fallbackListId ?? 0}.a${message.accountId}.${config.bounceDomain}>`,
  }
}
