// Makes a campaign's HTML trackable once, before it is rendered per recipient: every http(s) link becomes a
// Handlebars marker (`{{{__tidings_link_N}}}`) and an open pixel is added, so that the send only has to supply
// a few extra variables (linkMarkerVariables) instead of rewriting the HTML for each recipient.
//
// The HTML is not re-serialised: htmlparser2 only tells where each href value lies, and just those ranges are
// replaced. A DOM round trip would reformat the sender's markup and could mangle the Handlebars in it
// (`{{#if}}` between table rows, `{{{raw}}}`), which must reach Handlebars exactly as written.
//
// Templates may also hold placeholders that the send fills in, such as `{{unsubscribe_url}}` or
// UNSUBSCRIBE_MARKER, as a whole href: they are not http(s) URLs, so they are never tracked or tagged.
import { Parser } from 'htmlparser2'

/** Variable-name prefix of a tracked link's marker; the marker of link N is `{{{__tidings_link_N}}}`. */
export const LINK_MARKER_PREFIX = '__tidings_link_'
/** The open pixel's src; the send sets `__tidings_open` to the recipient's pixel URL. */
export const OPEN_MARKER = '{{{__tidings_open}}}'
/** The recipient's unsubscribe URL; the send sets `__tidings_unsubscribe`. */
export const UNSUBSCRIBE_MARKER = '{{{__tidings_unsubscribe}}}'
export const unsubscribeMarker = UNSUBSCRIBE_MARKER

/** Links carrying this attribute are left exactly as they are: no tracking, no UTM tags. */
const NO_TRACK_ATTRIBUTE = 'data-tidings-notrack'

const OPEN_PIXEL = `<img src="${OPEN_MARKER}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px">`

export interface TrackingOptions {
  trackClicks: boolean
  trackOpens: boolean
  /** Adds utm_campaign (and utm_source=tidings, utm_medium=email where missing) to every tracked link. */
  utmCampaign?: string
}

export interface TrackedHtml {
  html: string
  /** The links, UTM-tagged, entities decoded; link N is the one behind `{{{__tidings_link_N}}}`. */
  links: string[]
}

interface Replacement {
  start: number
  end: number
  text: string
}

/** Where one attribute's value lies in the source, and what htmlparser2 decoded it to. */
interface HrefAttribute {
  valueStart: number
  valueEnd: number
  quoted: boolean
  decoded: string
}

export function prepareTrackedHtml(html: string, options: TrackingOptions): TrackedHtml {
  const links: string[] = []
  const indexOfLink = new Map<string, number>()
  const replacements: Replacement[] = []
  let href: HrefAttribute | undefined
  let bodyClose: number | undefined

  const parser = new Parser({
    onopentagname() {
      href = undefined
    },
    onattribute(name, value, quote) {
      // A repeated href is ignored by browsers too: only the first one counts.
      if (name !== 'href' || href) return
      const located = locateValue(html, parser.startIndex, parser.endIndex, quote)
      if (located) href = { ...located, decoded: value }
    },
    onopentag(name, attributes) {
      const found = href
      href = undefined
      if (!found || (name !== 'a' && name !== 'area') || NO_TRACK_ATTRIBUTE in attributes) return
      const url = found.decoded.trim()
      // Only web links: this also leaves mailto:, tel:, #anchors and placeholders such as UNSUBSCRIBE_MARKER alone.
      if (!/^https?:\/\//i.test(url)) return
      // An unquoted href ends at the first space, which can cut `{{#if a}}` in two: rewriting half an
      // expression would leave a template that no longer compiles.
      if (hasUnclosedHandlebars(url)) return

      const utm = options.utmCampaign === undefined ? [] : utmParameters(url, options.utmCampaign)
      const link = insertQuery(url, utm, '&')
      if (options.trackClicks) {
        let index = indexOfLink.get(link)
        if (index === undefined) {
          index = links.push(link) - 1
          indexOfLink.set(link, index)
        }
        replacements.push(valueReplacement(found, `{{{${LINK_MARKER_PREFIX}${index}}}}`))
      } else {
        if (!indexOfLink.has(link)) indexOfLink.set(link, links.push(link) - 1)
        if (utm.length > 0) {
          // The source text, not the decoded value, is edited, so entities and Handlebars in it stay as written.
          const raw = html.slice(found.valueStart, found.valueEnd)
          const lead = raw.slice(0, raw.length - raw.trimStart().length)
          const core = raw.trim()
          const trail = raw.slice(lead.length + core.length)
          replacements.push(valueReplacement(found, lead + insertQuery(core, utm, '&amp;') + trail))
        }
      }
    },
    onclosetag(name, isImplied) {
      if (name === 'body' && !isImplied && bodyClose === undefined) bodyClose = parser.startIndex
    },
  })
  parser.end(html)

  // Running twice over the same HTML must not add a second pixel.
  if (options.trackOpens && !html.includes(OPEN_MARKER)) {
    const at = bodyClose ?? html.length
    replacements.push({ start: at, end: at, text: OPEN_PIXEL })
  }
  return { html: splice(html, replacements), links }
}

/**
 * Handlebars variables that fill in the link markers: `__tidings_link_N` → urls[N]. The markers are
 * triple-stashed, so that Handlebars does not entity-encode `=` and friends; the escaping an attribute value
 * needs is done here instead.
 */
export function linkMarkerVariables(urls: string[]): Record<string, string> {
  const variables: Record<string, string> = {}
  urls.forEach((url, index) => {
    variables[`${LINK_MARKER_PREFIX}${index}`] = escapeAttribute(url)
  })
  return variables
}

/**
 * The value's span inside the attribute text `source[start, end)` as htmlparser2 reports it during
 * onattribute (name, optional `=`, value, closing quote included). Undefined for an attribute with no value.
 */
function locateValue(source: string, start: number, end: number, quote: string | null | undefined) {
  if (quote === undefined) return undefined
  const text = source.slice(start, end)
  const equals = /^[^\s=]+\s*=\s*/.exec(text)
  if (!equals) return undefined
  if (quote === null) return { valueStart: start + equals[0].length, valueEnd: end, quoted: false }
  return { valueStart: start + equals[0].length + 1, valueEnd: end - 1, quoted: true }
}

function valueReplacement(href: HrefAttribute, value: string): Replacement {
  // An unquoted value ends at the first space or `>`: quoting keeps whatever replaces it in one piece.
  return href.quoted
    ? { start: href.valueStart, end: href.valueEnd, text: value }
    : { start: href.valueStart, end: href.valueEnd, text: `"${value.replaceAll('"', '&quot;')}"` }
}

/** The UTM parameters `url` lacks, encoded; none when it already names its campaign. */
function utmParameters(url: string, campaign: string): string[] {
  const present = queryKeys(url)
  if (present.has('utm_campaign')) return []
  const parameters: string[] = []
  if (!present.has('utm_source')) parameters.push('utm_source=tidings')
  if (!present.has('utm_medium')) parameters.push('utm_medium=email')
  parameters.push(`utm_campaign=${encodeQueryValue(campaign)}`)
  return parameters
}

function queryKeys(url: string): Set<string> {
  const question = indexOutsideHandlebars(url, '?')
  if (question < 0) return new Set()
  const hash = indexOutsideHandlebars(url, '#', question)
  const query = url.slice(question + 1, hash < 0 ? undefined : hash)
  return new Set(new URLSearchParams(query).keys())
}

/**
 * Adds `parameters` to the query of `url`, just before its fragment. Done on the text, not through `new URL()`,
 * which would percent-encode the `{{…}}` of a per-recipient link and normalise the rest of it.
 */
function insertQuery(url: string, parameters: string[], separator: string): string {
  if (parameters.length === 0) return url
  const hash = indexOutsideHandlebars(url, '#')
  const end = hash < 0 ? url.length : hash
  const before = url.slice(0, end)
  const question = indexOutsideHandlebars(before, '?')
  const joiner = question < 0 ? '?' : question === before.length - 1 || before.endsWith('&') ? '' : separator
  return before + joiner + parameters.join(separator) + url.slice(end)
}

/**
 * Where `char` first occurs in `text` from `from` on, outside any `{{…}}`/`{{{…}}}`, since a `#` or `?`
 * inside an expression (`{{#if vip}}`) is Handlebars syntax, not a URL delimiter. -1 when absent.
 */
function indexOutsideHandlebars(text: string, char: string, from = 0): number {
  let i = from
  while (i < text.length) {
    if (text.startsWith('{{', i)) {
      const close = text.indexOf('}}', i + 2)
      if (close < 0) return -1
      i = close + 2
      while (text[i] === '}') i++
      continue
    }
    if (text[i] === char) return i
    i++
  }
  return -1
}

function hasUnclosedHandlebars(text: string): boolean {
  for (let open = text.indexOf('{{'); open >= 0; ) {
    const close = text.indexOf('}}', open + 2)
    if (close < 0) return true
    open = text.indexOf('{{', close + 2)
  }
  return false
}

/** encodeURIComponent leaves `'` alone, which would end a single-quoted attribute. */
function encodeQueryValue(value: string): string {
  return encodeURIComponent(value).replaceAll("'", '%27')
}

function escapeAttribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll("'", '&#39;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

/** Applies non-overlapping replacements, given in any order, to `source`. */
function splice(source: string, replacements: Replacement[]): string {
  const sorted = [...replacements].sort((a, b) => a.start - b.start)
  let result = ''
  let position = 0
  for (const { start, end, text } of sorted) {
    result += source.slice(position, start) + text
    position = end
  }
  return result + source.slice(position)
}
