// Queries of hot paths built and compiled by Kysely once per database, then run with new parameters. Building
// and compiling a lookup with a few conditions costs Kysely 10–15 µs per request on this project's machine
// (docs/benchmarks.md), more than SQLite takes to run it from its statement cache; on the tracking hits' batches
// it was most of the time spent outside SQLite. Two forms:
// - prepareQuery: named parameters, for reads of the API's hot routes. On SQLite the statement is prepared once
//   too; on PostgreSQL it is a named prepared statement, planned once per connection (storage/db.ts).
// - compiledOnce: positional arguments, reads or writes, whose lists travel as one parameter (repos/given-rows.ts).
import type SQLite from 'better-sqlite3'
import type { Compilable, CompiledQuery, DialectAdapter, Kysely, QueryResult, RawBuilder } from 'kysely'
import type { Database } from './tables.js'
import { adapterOf, isPostgres } from './dialect.js'
import { nameStatement, sqliteHandleOf } from './db.js'

/** Stands for a parameter while the query is built: found again by identity among the compiled parameters. */
class Placeholder {
  constructor(readonly name: string) {}
}

/** Each compiled parameter: a value fixed when the query was built, or the name of a parameter given per run. */
type Slot = { fixed: unknown } | { name: string }

interface Compiled<Row> {
  query: CompiledQuery<Row>
  slots: readonly Slot[]
  /** SQLite: the statement, prepared once, and the connection it runs on. */
  sqlite?: { handle: SQLite.Database; statement: SQLite.Statement }
}

/** What a builder gets to stand for the parameter `name`; typed as the value it will be. */
export type Param<P> = <K extends keyof P & string>(name: K) => P[K]

export interface PreparedQuery<P, Row> {
  /** Every row. `db` may be a transaction: it runs there. */
  execute(db: Kysely<Database>, params: P): Promise<Row[]>
  /** The first row, or undefined. */
  executeTakeFirst(db: Kysely<Database>, params: P): Promise<Row | undefined>
}

/**
 * `build` is called once per database (the SQL differs between dialects), with `param(name)` wherever a value
 * given per run goes. Parameters are single values (not lists: `in (…)` changes the SQL with its length) and
 * must end up as bound parameters, not literals; a placeholder Kysely did not bind is an error at first use.
 */
export function prepareQuery<P extends Record<string, unknown>, Row>(
  build: (db: Kysely<Database>, param: Param<P>) => Compilable<Row>,
): PreparedQuery<P, Row> {
  const compiledFor = oncePerDatabase<Compiled<Row>>((db) => compile(db, build))
  const execute = async (db: Kysely<Database>, params: P): Promise<Row[]> => {
    // A plugin (withPlugin) may rewrite the query or its rows: built for this call and run through Kysely.
    if (db.getExecutor().plugins.length > 0) return (await db.executeQuery(build(db, ((name) => params[name]) as Param<P>))).rows
    const { query, slots, sqlite } = compiledFor(db)
    const parameters = slots.map((slot) => ('name' in slot ? params[slot.name] : slot.fixed))
    // SQLite has one connection, which Kysely lends to one caller at a time through a chain of promises (~6 µs a
    // query). A statement can run on it at once unless another caller's transaction is open there: then it waits
    // its turn through Kysely, so that it never reads what that transaction has not committed.
    if (sqlite && (db.isTransaction || !sqlite.handle.inTransaction)) return sqlite.statement.all(parameters) as Row[]
    return (await db.executeQuery<Row>({ ...query, parameters })).rows
  }
  return {
    execute,
    executeTakeFirst: async (db, params) => (await execute(db, params))[0],
  }
}

function compile<P, Row>(db: Kysely<Database>, build: (db: Kysely<Database>, param: Param<P>) => Compilable<Row>): Compiled<Row> {
  const placeholders = new Map<string, Placeholder>()
  const param = ((name: string) => {
    let placeholder = placeholders.get(name)
    if (!placeholder) placeholders.set(name, (placeholder = new Placeholder(name)))
    return placeholder
  }) as Param<P>
  const query = build(db, param).compile()
  const slots = query.parameters.map((value): Slot => (value instanceof Placeholder ? { name: value.name } : { fixed: value }))
  for (const name of placeholders.keys()) {
    if (!slots.some((slot) => 'name' in slot && slot.name === name)) {
      throw new Error(`prepareQuery: parameter ${name} is not bound in ${query.sql}`)
    }
  }
  if (isPostgres(db)) {
    nameStatement(query.sql)
    return { query, slots }
  }
  const handle = sqliteHandleOf(db)
  const statement = handle.prepare(query.sql)
  // A statement that returns no rows goes through Kysely, which also counts the rows it changed.
  return statement.reader ? { query, slots, sqlite: { handle, statement } } : { query, slots }
}

/**
 * `build(db, args)` must use each of `args` once, as a parameter, in their order. It runs once per database; later
 * calls run its compiled form with their own arguments. Only for queries whose text never depends on their
 * arguments. `named`: on PostgreSQL, a named prepared statement too (planned once per connection).
 */
export function compiledOnce<R>(build: (db: Kysely<Database>, args: readonly unknown[]) => Compilable<R> | RawBuilder<R>, options: { named?: boolean } = {}) {
  const compiledFor = oncePerDatabase((db, firstArgs: readonly unknown[]): CompiledQuery<R> => {
    const built = build(db, firstArgs)
    const query = 'isRawBuilder' in built ? built.compile(db) : built.compile()
    if (query.parameters.length !== firstArgs.length || query.parameters.some((p, i) => p !== firstArgs[i])) {
      throw new Error(`a query compiled once must take its arguments as its parameters, in order: ${query.sql}`)
    }
    if (options.named && isPostgres(db)) nameStatement(query.sql)
    return query
  })
  return (db: Kysely<Database>, args: readonly unknown[]): Promise<QueryResult<R>> => {
    return db.executeQuery<R>({ ...compiledFor(db, args), parameters: args })
  }
}

/** `make` once per database (the adapter a database shares with its transactions), by the first call's arguments. */
function oncePerDatabase<T, A = void>(make: (db: Kysely<Database>, first: A) => T): (db: Kysely<Database>, first: A) => T {
  const byDatabase = new WeakMap<DialectAdapter, T>()
  return (db, first) => {
    const adapter = adapterOf(db)
    let made = byDatabase.get(adapter)
    if (made === undefined) byDatabase.set(adapter, (made = make(db, first)))
    return made
  }
}
