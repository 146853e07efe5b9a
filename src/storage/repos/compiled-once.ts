// Queries built and compiled once per database, then run with new arguments. Kysely builds a query's tree and
// compiles it to SQL on every call: on the tracking hits' batches that was most of the time spent outside SQLite
// (docs/benchmarks.md, "Tracking hits"). Only for queries whose text never depends on their arguments: lists
// travel as one parameter (given-rows.ts).
import type { CompiledQuery, Compilable, DialectAdapter, Kysely, QueryResult, RawBuilder } from 'kysely'
import { adapterOf } from '../dialect.js'
import type { Database } from '../tables.js'

/**
 * `build(db, args)` must use each of `args` once, as a parameter, in their order. It runs once per database (the
 * adapter a database shares with its transactions); later calls run its compiled form with their own arguments.
 */
export function compiledOnce<R>(build: (db: Kysely<Database>, args: readonly unknown[]) => Compilable<R> | RawBuilder<R>) {
  const compiled = new WeakMap<DialectAdapter, CompiledQuery<R>>()
  return (db: Kysely<Database>, args: readonly unknown[]): Promise<QueryResult<R>> => {
    let query = compiled.get(adapterOf(db))
    if (!query) {
      const built = build(db, args)
      query = 'isRawBuilder' in built ? built.compile(db) : built.compile()
      if (query.parameters.length !== args.length || query.parameters.some((p, i) => p !== args[i])) {
        throw new Error(`a query compiled once must take its arguments as its parameters, in order: ${query.sql}`)
      }
      compiled.set(adapterOf(db), query)
    }
    return db.executeQuery<R>({ ...query, parameters: args })
  }
}
