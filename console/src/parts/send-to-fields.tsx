// "Send to" of the SMS and the Viber campaign forms: one of the account's lists, or numbers typed in (then a field
// for them). Both forms read the choice the same way (targetOf), so they agree on what the default is.
import { numbersText, type PhoneBook } from '../pages/sms-numbers.js'

/** The value of the "Numbers typed in" choice; a list's choice is its id. */
export const NUMBERS = 'numbers'

/** What the form sends to: the reader's choice, else the first list, else numbers typed in (no list yet). */
export function targetOf(chosen: string, books: PhoneBook[]): string {
  if (chosen !== '') return chosen
  return books[0] ? String(books[0].id) : NUMBERS
}

export function SendToFields(props: {
  channel: 'sms' | 'viber'
  /** The select's form name; the SMS form has one, the Viber form reads only `target`. */
  name?: string
  books: PhoneBook[]
  target: string
  onChoose: (target: string) => void
  phonesLabel: string
}) {
  const id = `${props.channel}-new`
  return (
    <>
      <div class="field">
        <label for={`${id}-to`}>Send to</label>
        <select id={`${id}-to`} name={props.name} value={props.target} onChange={(event) => props.onChoose(event.currentTarget.value)}>
          {props.books.map((b) => (
            <option key={b.id} value={b.id}>
              List: {b.name} ({numbersText(b.active_phones_quantity)})
            </option>
          ))}
          <option value={NUMBERS}>Numbers typed in</option>
        </select>
      </div>
      {props.target === NUMBERS && (
        <div class="field">
          <label for={`${id}-phones`}>{props.phonesLabel}</label>
          <textarea id={`${id}-phones`} name="phones" rows={3} />
        </div>
      )}
    </>
  )
}
