// SMS sender IDs (GET /sms/senders, API.md 4.11): read-only here, as in the API; the operator registers and
// moderates them (`tidings sms senders …`). A campaign may use only an active one.
import { api } from '../api.js'
import { Messages, usePageState } from '../parts/page-state.js'

export interface SmsSender {
  id: number
  sender: string
  status: number
  status_explain: string
}

export const loadSmsSenders = () => api<SmsSender[]>('GET', '/sms/senders')

export function SmsSenders() {
  const state = usePageState(loadSmsSenders)
  return (
    <>
      <h2>Sender names</h2>
      <p>The names an SMS may come from. The service's operator registers and approves them; a campaign may use an active one.</p>
      <Messages state={state} />
      {state.data === undefined ? (
        !state.error && <p>Loading sender names…</p>
      ) : state.data.length === 0 ? (
        <p>No sender names yet: ask the service's operator to register one.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">SMS sender names</caption>
            <thead>
              <tr>
                <th scope="col">Sender name</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {state.data.map((sender) => (
                <tr key={sender.id}>
                  <th scope="row">{sender.sender}</th>
                  <td data-label="Status">{sender.status_explain}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  )
}
