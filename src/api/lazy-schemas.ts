// Route schemas compiled by the first request that needs them instead of all at start. Compiling the ~150
// validators (Ajv) and answer serializers (fast-json-stringify) of every route at start took ~17 MB of an idle
// server's RSS (the generated code of routes most processes never serve) and ~0.4 s of its start-up.
// A schema that does not compile still fails loudly: `compilePendingSchemas` compiles every one (a test calls it).
import type AjvCompiler from '@fastify/ajv-compiler'
import type { FastifyServerOptions } from 'fastify'
import type FastJson from 'fast-json-stringify'
import { escapeNonAscii } from '../lib/ascii-json.js'
import { lazyRequire } from '../lib/lazy-require.js'

// Ajv (which fast-json-stringify uses too) is loaded by the first request (~3 MB): a worker never loads it.
const ajvCompiler = lazyRequire<typeof AjvCompiler>('@fastify/ajv-compiler')
const fastJson = lazyRequire<typeof FastJson>('fast-json-stringify')

type Compilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>
type Validate = ((data: unknown) => unknown) & { errors?: unknown }

const pending = new Set<() => unknown>()

/** How many route schemas are still waiting for their first use. */
export function pendingSchemaCount(): number {
  return pending.size
}

/** Compiles every schema not compiled yet; throws the first compile error. */
export function compilePendingSchemas(): void {
  for (const compile of pending) compile()
}

/** A function built by `build` on its first call (or by compilePendingSchemas), then called directly. */
function builtOnFirstCall<F extends (...args: never[]) => unknown>(build: () => F): { call: F; built: () => F | undefined } {
  let built: F | undefined
  const compile = () => {
    if (!built) {
      built = build()
      pending.delete(compile)
    }
    return built
  }
  pending.add(compile)
  return { call: ((...args: Parameters<F>) => compile()(...args)) as F, built: () => built }
}

/** Fastify's own Ajv compiler (same options, same pool), each route's validator compiled on first use. */
export const lazyValidators = ((externalSchemas: Record<string, unknown>, ajvOptions: unknown) => {
  let compile: ((route: unknown) => Validate) | undefined
  // Typed by the package as Ajv's compile(schema); Fastify calls it with the route part's definition.
  const compiler = () => (compile ??= ajvCompiler()()(externalSchemas as never, ajvOptions as never) as unknown as (route: unknown) => Validate)
  return (route: unknown) => {
    const validator = builtOnFirstCall(() => compiler()(route))
    // Fastify reads `errors` of the function it called after a failed validation.
    return Object.defineProperty(validator.call, 'errors', { get: () => validator.built()?.errors })
  }
}) as unknown as Compilers['buildValidator']

/**
 * Each route's answer serializer (fast-json-stringify), built by its first answer. Non-ASCII characters are
 * written `\uXXXX` (lib/ascii-json.ts: the npm SDK cuts answers into chunks that may split a UTF-8 sequence).
 */
export const lazySerializers = (() => (route: { schema: unknown }) =>
  builtOnFirstCall(() => {
    const stringify = fastJson()(route.schema as Parameters<typeof FastJson>[0])
    return (data: unknown) => escapeNonAscii(stringify(data))
  }).call) as unknown as Compilers['buildSerializer']
