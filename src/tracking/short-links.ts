// Short tracked links of SMS campaigns (stat_link_tracking, API.md 4.11.1): every link of the body becomes
// TIDINGS_PUBLIC_URL/s/{code}, which counts the click for the campaign and redirects. A text message pays
// by the character, so the code is short: 8 random base-62 characters (47 bits: not worth guessing, since
// all a code leads to is a link that was sent in a text anyway).
import { randomInt } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../storage/tables.js'
import { countLinkClick } from '../storage/repos/campaigns.js'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const CODE_LENGTH = 8
/** http(s) links up to the next space; trailing punctuation of the sentence is not part of the link. */
const LINK = /\bhttps?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]}'»]/gi

function newCode(): string {
  let code = ''
  for (let i = 0; i < CODE_LENGTH; i += 1) code += ALPHABET[randomInt(ALPHABET.length)]
  return code
}

/** The base of short links: with `https://` (or the public URL's scheme) when asked, bare otherwise. */
function shortBase(publicUrl: string, withProtocol: boolean): string {
  const url = new URL(publicUrl)
  const base = `${url.host}${url.pathname.replace(/\/$/, '')}/s/`
  return withProtocol ? `${url.protocol === 'http:' ? 'http' : 'https'}://${base}` : base
}

/** Replaces each link of `body` with a short link of the campaign, stored in the same transaction. */
export async function shortenLinks(
  db: Kysely<Database>,
  s: { campaignId: number; body: string; publicUrl: string; withProtocol: boolean; now: number },
): Promise<string> {
  const links = [...new Set(s.body.match(LINK) ?? [])]
  if (links.length === 0) return s.body
  const codes = new Map<string, string>()
  for (const url of links) {
    const code = newCode()
    await db.insertInto('short_links').values({ code, campaign_id: s.campaignId, url, created_at: s.now }).execute()
    codes.set(url, code)
  }
  const base = shortBase(s.publicUrl, s.withProtocol)
  return s.body.replace(LINK, (url) => `${base}${codes.get(url)!}`)
}

/** Where a short link leads, counting the click; undefined for an unknown code. */
export async function followShortLink(db: Kysely<Database>, code: string): Promise<string | undefined> {
  if (!/^[A-Za-z0-9]{1,16}$/.test(code)) return undefined
  const link = await db.selectFrom('short_links').select(['campaign_id', 'url']).where('code', '=', code).executeTakeFirst()
  if (!link) return undefined
  await countLinkClick(db, Number(link.campaign_id), link.url)
  return link.url
}
