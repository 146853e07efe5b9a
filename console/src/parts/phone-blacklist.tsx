// The two halves the SMS and the Viber blacklist share: the form adding numbers with a description, and the table of
// entries with a Remove button each. The pages keep what differs: their route, their counters, paging (Viber only).
import { fieldOf } from './page-state.js'
import { phonesOf } from './sections.js'

export interface BlacklistEntry {
  phone: number
  description: string
  add_date: string
}

export interface BlacklistAddition {
  phones: string[]
  description: string
}

/** The add form; cleared once `onAdd` says the API took the numbers. `channel` keeps the field ids unique. */
export function BlacklistAddForm({ channel, onAdd }: { channel: 'sms' | 'viber'; onAdd: (addition: BlacklistAddition) => Promise<boolean> }) {
  const add = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    if (await onAdd({ phones: phonesOf(fieldOf(form, 'phones')), description: fieldOf(form, 'description') })) form.reset()
  }
  return (
    <form class="inline" onSubmit={add}>
      <div class="field">
        <label for={`${channel}-blacklist-phones`}>Numbers (separated by commas, spaces or lines)</label>
        <textarea id={`${channel}-blacklist-phones`} name="phones" rows={2} />
      </div>
      <div class="field">
        <label for={`${channel}-blacklist-description`}>Description (optional)</label>
        <input id={`${channel}-blacklist-description`} name="description" maxLength={1000} />
      </div>
      <button type="submit">Add to blacklist</button>
    </form>
  )
}

export function BlacklistTable<E extends BlacklistEntry>(props: { caption: string; entries: E[]; keyOf: (entry: E) => number; onRemove: (entry: E) => void }) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Number</th>
            <th scope="col">Description</th>
            <th scope="col">Added (UTC)</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.entries.map((entry) => (
            <tr key={props.keyOf(entry)}>
              <th scope="row">{entry.phone}</th>
              <td data-label="Description">{entry.description}</td>
              <td data-label="Added">{entry.add_date}</td>
              <td>
                <div class="actions">
                  <button type="button" class="secondary" aria-label={`Remove ${entry.phone} from the blacklist`} onClick={() => props.onRemove(entry)}>
                    Remove
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
