// The shell of our small public pages (link outcomes, the confirmation and unsubscribe buttons): a title and
// a body, escaped here except for the body markup the page builds itself from escaped parts.
import { escapeHtml } from '../../lib/validator-parts.js'

const e = escapeHtml

/** A page of a title and `bodyHtml` (already escaped by the caller). */
export function publicPageShell(options: { title: string; bodyHtml: string; lang?: string }): string {
  return `<!doctype html>
<html lang="${e(options.lang ?? 'en')}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${e(options.title)}</title></head>
<body style="font-family:Arial,Helvetica,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222">
<h1 style="font-size:1.5rem">${e(options.title)}</h1>${options.bodyHtml}
</body></html>
`
}

/** A page that only says something: a title and one paragraph. */
export function messagePage(title: string, text: string, lang = 'en'): string {
  return publicPageShell({ title, bodyHtml: `<p>${e(text)}</p>`, lang })
}

/** A question and one button that posts to `action` (the page's own URL: its policy allows no other). */
export function buttonForm(action: string, label: string): string {
  return `<form method="post" action="${e(action)}"><button type="submit" style="font-size:1rem;padding:.5rem 1.5rem">${e(label)}</button></form>`
}
