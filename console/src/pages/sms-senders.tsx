// SMS sender IDs (GET /sms/senders, API.md 4.11): read-only here, as in the API; the operator registers and
// moderates them (`tidings sms senders …`). A campaign may use only an active one.
import { api } from '../api.js'
import { usePageState } from '../parts/page-state.js'
import { SenderNames } from '../parts/sender-names.js'

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
    <SenderNames
      channel="SMS"
      intro="The names an SMS may come from. The service's operator registers and approves them; a campaign may use an active one."
      columns={['Status']}
      state={state}
      rows={state.data?.map((s) => ({ id: s.id, name: s.sender, cells: [s.status_explain] }))}
    />
  )
}
