// Rows the caller gives, as a table one statement can join (`update … from <given> where … = given.id`): a batch
// whose rows each carry their own values (a time, a country) is written by one statement instead of one per row.
import { sql, type RawBuilder } from 'kysely'
import { isPostgres, type QueryingDatabase } from '../dialect.js'

export interface GivenColumn {
  name: string
  /** PostgreSQL's type of the column (SQLite takes the values as they come). */
  type: 'bigint' | 'text'
}

/**
 * `given(columns…)` holding `rows` (each in the order of `columns`). PostgreSQL: unnest() of one typed array per
 * column, a fixed number of parameters whatever the batch; SQLite, which has no arrays: a VALUES list, whose
 * columns SQLite names column1, column2 … and the select renames.
 */
export function givenRows(db: QueryingDatabase, columns: readonly GivenColumn[], rows: readonly (readonly unknown[])[]): RawBuilder<unknown> {
  const names = sql.join(columns.map((c) => sql.id(c.name)))
  if (isPostgres(db)) {
    const arrays = columns.map((c, i) => sql`${rows.map((r) => r[i])}::${sql.raw(c.type)}[]`)
    return sql`unnest(${sql.join(arrays)}) as given(${names})`
  }
  const renamed = sql.join(columns.map((c, i) => sql`${sql.raw(`column${i + 1}`)} as ${sql.id(c.name)}`))
  const values = sql.join(rows.map((r) => sql`(${sql.join(r.map((v) => sql`${v}`))})`))
  return sql`(select ${renamed} from (values ${values})) as given`
}
