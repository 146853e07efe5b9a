// The plain-text part of an email, derived from its HTML (links kept as "text [url]"). Headings keep their
// case: the HTML may hold template variables (`{{name}}`) that must survive into the text template.
import type * as HtmlToText from 'html-to-text'
import { lazyRequire } from './lazy-require.js'

const htmlToText = lazyRequire<typeof HtmlToText>('html-to-text')

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } }))

export function textFromHtml(html: string): string {
  return htmlToText().convert(html, { wordwrap: 78, selectors: [{ selector: 'img', format: 'skip' }, ...HEADINGS] })
}
