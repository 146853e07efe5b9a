// The read-only "Sender names" section the SMS and the Viber pages share: the operator registers the names, the
// page only lists them. Each page says which columns it shows beyond the name (Viber has three, SMS one).
import { Messages, type PageState } from './page-state.js'

/** A sender name and its other cells, in the order of the section's `columns`. */
export interface SenderNameRow {
  id: number
  name: string
  cells: string[]
}

export function SenderNames(props: { channel: 'SMS' | 'Viber'; intro: string; columns: string[]; state: PageState<unknown>; rows: SenderNameRow[] | undefined }) {
  const { state, rows, columns } = props
  return (
    <>
      <h2>Sender names</h2>
      <p>{props.intro}</p>
      <Messages state={state} />
      {rows === undefined ? (
        !state.error && <p>Loading sender names…</p>
      ) : rows.length === 0 ? (
        <p>No sender names yet: ask the service's operator to register one.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">{props.channel} sender names</caption>
            <thead>
              <tr>
                <th scope="col">Sender name</th>
                {columns.map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id}>
                  <th scope="row">{row.name}</th>
                  {row.cells.map((cell, i) => (
                    <td key={columns[i]} data-label={columns[i]}>
                      {cell}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  )
}
