// Packages a process may never use, loaded on first use rather than at start. An idle `tidings serve`
// (SQLite, capture channels, no bounce listener) loaded every package at start: 152 MB of RSS, of which pg
// (and the undici it pulls in), mailparser, smtp-server, nodemailer, smpp, jose, handlebars, html-to-text,
// validator and libphonenumber-js were ~60 MB that only some requests or settings need (docs/benchmarks.md).
//
// require() because the callers are synchronous (a validator, a renderer); every package is loaded through here
// or through `import type` only, never both ways, so no package is loaded twice (its CommonJS and ESM builds).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** A function returning the package `id`, loaded by its first call. */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined
  return () => (loaded ??= require(id) as T)
}

/** An ES-module-only package (such as jose), imported by the first call of the returned function. */
export function lazyImport<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined
  return () => (loading ??= load())
}
