// The variables a template's HTML uses. Templates are Handlebars (src/lib/render.ts): `{{name}}` (escaped),
// `{{{html}}}` (raw), blocks such as `{{#if city}}…{{/if}}` and helpers such as `{{lookup this "x"}}`. Found by a
// scan of the mustaches rather than by shipping Handlebars' parser (~20 KB gzipped) to the browser: a listing,
// not a validation (the server compiles the template and refuses nothing it cannot send).

/** Filled by Tidings for every message (src/delivery/email/campaign-content.ts variablesOf); the rest come from the contact. */
export const BUILT_IN_VARIABLES = new Set(['email', 'unsubscribe_url', 'permalink'])

const MUSTACHE = /\{\{\{?~?\s*([\s\S]*?)\s*~?\}?\}\}/g

/** The variable names in the order they first appear, each once. */
export function variablesOf(html: string): string[] {
  const found = new Set<string>()
  for (const [, inner = ''] of html.matchAll(MUSTACHE)) {
    // Comments, block ends, `else`, partials: no variable of their own.
    if (/^(?:!|\/|>|else\b)/.test(inner)) continue
    const block = /^[#^]/.test(inner)
    const words = inner
      .replace(/^[#^&]\s*/, '')
      .replace(/\bas\s+\|[^|]*\|/, '') // {{#each items as |item|}}: `item` is the block's own name
      .replace(/[()]/g, ' ') // sub-expressions: {{#if (eq a b)}}
      .match(/"[^"]*"|'[^']*'|\S+/g) ?? []
    // `{{name}}` is a variable; `{{#if name}}` and `{{lookup person "x"}}` are a helper followed by its arguments.
    const names = block || words.length > 1 ? words.slice(1) : words
    for (const word of names) {
      const name = variableOf(word)
      if (name !== undefined) found.add(name)
    }
  }
  return [...found]
}

function variableOf(word: string): string | undefined {
  // Literals, `this`, data variables (@index) and hash arguments (key=value).
  if (/^["'\d-]|^(?:true|false|null|undefined|this)$|^@|=/.test(word)) return undefined
  const path = word.replace(/^(?:\.\.\/)+/, '').replace(/^this\./, '')
  return /^[A-Za-z_][\w$-]*(?:\.[\w$-]+)*$/.test(path) ? path : undefined
}
