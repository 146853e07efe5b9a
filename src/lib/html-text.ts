// The plain-text part of an email, derived from its HTML (links kept as "text [url]").
import { convert } from 'html-to-text'

export function textFromHtml(html: string): string {
  return convert(html, { wordwrap: 78, selectors: [{ selector: 'img', format: 'skip' }] })
}
