// Viber sender names (GET /viber/senders, API.md 4.10): read-only here, as in the API; the operator registers
// and moderates them (`tidings viber senders …`). A campaign may use a verified one.
import { api } from '../api.js'
import { usePageState } from '../parts/page-state.js'
import { SenderNames } from '../parts/sender-names.js'

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
    <SenderNames
      channel="Viber"
      intro="The names a Viber message may come from. The service's operator registers and verifies them; a campaign may use a verified one."
      columns={['Status', 'Country', "Operator's comment"]}
      state={state}
      rows={state.data?.map((s) => ({ id: s.id, name: s.name, cells: [s.status, s.country, s.admin_comment ?? ''] }))}
    />
  )
}
