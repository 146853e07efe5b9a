// Template rendering, Handlebars-compatible (`{{name}}` HTML-escaped, `{{{html}}}` raw, `{{#if}}`), compiled
// once and then run per recipient (ARCHITECTURE.md: 3–6 µs a render). A template's own syntax error is the
// sender's mistake, not ours: it is reported, never thrown from deep inside a send.
import Handlebars from 'handlebars'

export type Render = (variables: Record<string, unknown>) => string

/** A separate environment: no helper or partial registered elsewhere leaks into customer templates. */
const handlebars = Handlebars.create()

/** Compiles `source`; a template that does not parse gives an Error naming where. Plain text is not HTML-escaped. */
export function compileTemplate(source: string, options: { escape?: boolean } = {}): Render | Error {
  try {
    const template = handlebars.compile(source, { strict: false, preventIndent: true, noEscape: options.escape === false })
    // Compiling is lazy in Handlebars: run it once so a syntax error shows here.
    template({})
    return (variables) => template(variables, { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false })
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err))
  }
}
