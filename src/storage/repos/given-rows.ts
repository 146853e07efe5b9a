// Lists and rows the caller gives, each as one parameter whatever their length: `id = any(…)`-style lists and tables
// one statement can join (`update … from <given> where … = given.id`), so that a batch whose rows each carry their
// own values (a time, a country) is written by one statement, and the statement's text is the same for every
// batch (compiledOnce in storage/prepared-query.ts compiles it once). PostgreSQL takes arrays; SQLite, which has none, a JSON array.
import { sql, type RawBuilder } from 'kysely'
import { isPostgres, type QueryingDatabase } from '../dialect.js'

export type ColumnType = 'bigint' | 'text' | 'integer'

/** `values` as the one parameter of a list: an array (PostgreSQL) or its JSON (SQLite). */
export function listArgument(db: QueryingDatabase, values: readonly unknown[]): unknown {
  return isPostgres(db) ? [...values] : JSON.stringify(values)
}

/** `column` is one of the list `argument` (made by listArgument). */
export function isAmong(db: QueryingDatabase, column: string, argument: unknown, type: ColumnType): RawBuilder<boolean> {
  return isPostgres(db) ? sql<boolean>`${sql.ref(column)} = any(${argument}::${sql.raw(type)}[])` : sql<boolean>`${sql.ref(column)} in (select value from json_each(${argument}))`
}

export interface GivenColumn {
  name: string
  /** PostgreSQL's type of the column (SQLite takes the values as they come). */
  type: ColumnType
}

/** The parameters of givenRows for `rows` (each in the order of `columns`): an array per column, or one JSON. */
export function givenRowsArguments(db: QueryingDatabase, columns: readonly GivenColumn[], rows: readonly (readonly unknown[])[]): unknown[] {
  return isPostgres(db) ? columns.map((_, i) => rows.map((r) => r[i])) : [JSON.stringify(rows)]
}

/** `given(columns…)`: the rows whose parameters givenRowsArguments made. */
export function givenRows(db: QueryingDatabase, columns: readonly GivenColumn[], args: readonly unknown[]): RawBuilder<unknown> {
  const names = sql.join(columns.map((c) => sql.id(c.name)))
  if (isPostgres(db)) return sql`unnest(${sql.join(columns.map((c, i) => sql`${args[i]}::${sql.raw(c.type)}[]`))}) as given(${names})`
  const fields = sql.join(columns.map((c, i) => sql`value ->> ${sql.lit(i)} as ${sql.id(c.name)}`))
  return sql`(select ${fields} from json_each(${args[0]})) as given`
}
