// A public page that only says something (a link's outcome): a title and one paragraph, both escaped.
import validator from 'validator'

export function messagePage(title: string, text: string, lang = 'en'): string {
  const e = validator.escape
  return `<!doctype html>
<html lang="${e(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${e(title)}</title></head>
<body style="font-family:Arial,Helvetica,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222">
<h1 style="font-size:1.5rem">${e(title)}</h1><p>${e(text)}</p>
</body></html>
`
}
