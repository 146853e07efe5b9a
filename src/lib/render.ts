// Template rendering, Handlebars-compatible (`{{name}}` HTML-escaped, `{{{html}}}` raw, `{{#if}}`), compiled
// once and then run per recipient (ARCHITECTURE.md: 3–6 µs a render). A template's own syntax error is the
// sender's mistake, not ours: it is reported, never thrown from deep inside a send.
import type Handlebars from 'handlebars'
import { lazyRequire } from './lazy-require.js'

export type Render = (variables: Record<string, unknown>) => string

/**
 * A separate environment: no helper or partial registered elsewhere leaks into customer templates. Made on the
 * first compile: Handlebars (with its source-map dependency) is ~10 MB a process without templates never needs.
 */
const handlebarsEnvironment = lazyRequire<typeof Handlebars>('handlebars')
let environment: typeof Handlebars | undefined
function handlebars(): typeof Handlebars {
  return (environment ??= customerEnvironment(handlebarsEnvironment().create()))
}

// The built-in `{{log "…"}}` writes its arguments to the service's stdout (console.info): a customer's
// template must not. It is replaced, not removed: templates stored with `{{log}}` must still render (without
// it every message of theirs would end "not sent"), so it renders nothing and writes nothing. The other
// built-ins (if, unless, each, with, lookup) write nothing and read through the same property checks.
function customerEnvironment(env: typeof Handlebars): typeof Handlebars {
  env.registerHelper('log', () => '')
  return env
}

/**
 * Own properties only (Handlebars ≥ 4.6 defaults): `{{constructor}}`, `{{lookup this "__proto__"}}` render
 * empty. Said explicitly, as Handlebars otherwise writes "Access has been denied…" to stderr on each new name.
 */
const RUNTIME_OPTIONS: Handlebars.RuntimeOptions = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false }

/** Compiles `source`; a template that does not parse gives an Error naming where. Plain text is not HTML-escaped. */
export function compileTemplate(source: string, options: { escape?: boolean } = {}): Render | Error {
  try {
    const template = handlebars().compile(source, {
      strict: false,
      preventIndent: true,
      noEscape: options.escape === false,
    })
    // Compiling is lazy in Handlebars: run it once so a syntax error shows here.
    template({}, RUNTIME_OPTIONS)
    return (variables) => template(variables, RUNTIME_OPTIONS)
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err))
  }
}
