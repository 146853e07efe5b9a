// Viber sender names (GET /viber/senders, API.md 4.10): read-only here, as in the API; the operator registers
// and moderates them (`tidings viber senders …`). A campaign may use a verified one.
import { api } from '../api.js'
import { Messages, usePageState } from '../parts/page-state.js'

export interface ViberSender {
  id: number
  status: string
  name: string
  country: string
  service_type: string
  admin_comment: string | null
}

export const loadViberSenders = () => api<ViberSender[]>('GET', '/viber/senders')

export function ViberSenders() {
  const state = usePageState(loadViberSenders)
  return (
    <>
      <h2>Sender names</h2>
      <p>The names a Viber message may come from. The service's operator registers and verifies them; a campaign may use a verified one.</p>
      <Messages state={state} />
      {state.data === undefined ? (
        !state.error && <p>Loading sender names…</p>
      ) : state.data.length === 0 ? (
        <p>No sender names yet: ask the service's operator to register one.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Viber sender names</caption>
            <thead>
              <tr>
                <th scope="col">Sender name</th>
                <th scope="col">Status</th>
                <th scope="col">Country</th>
                <th scope="col">Operator's comment</th>
              </tr>
            </thead>
            <tbody>
              {state.data.map((sender) => (
                <tr key={sender.id}>
                  <th scope="row">{sender.name}</th>
                  <td data-label="Status">{sender.status}</td>
                  <td data-label="Country">{sender.country}</td>
                  <td data-label="Operator's comment">{sender.admin_comment ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  )
}
