// Table interfaces: Webhook endpoints, records, the events they deliver, deliveries and attempts. Conventions: storage/tables.ts.
import type { Generated } from 'kysely'

/** A customer's URL; webhooks with the same URL share it, so their events go out together and in order. */
export interface WebhookEndpointsTable {
  id: Generated<number>
  account_id: number
  url: string
  /** After a failed request, when the next may be made. */
  next_attempt_at: Generated<number>
  /** Failed requests since the last that succeeded: the backoff grows with them. */
  failures: Generated<number>
  /** Set while a dispatcher delivers to the endpoint. */
  locked_until: number | null
  created_at: number
  updated_at: number
}

/** A webhook record (API.md 2.9): one action of one endpoint. */
export interface WebhooksTable {
  id: Generated<number>
  account_id: number
  endpoint_id: number
  action: string
  created_at: number
}

export interface EventsTable {
  id: Generated<number>
  account_id: number
  /** API.md 6 */
  action: string
  /** JSON: the fields a receiver gets */
  payload: string
  created_at: number
}

export interface WebhookDeliveriesTable {
  id: Generated<number>
  endpoint_id: number
  event_id: number
  /** queued, delivered or failed */
  status: string
  created_at: number
  finished_at: number | null
  last_error: string | null
}

export interface WebhookAttemptsTable {
  id: Generated<number>
  endpoint_id: number
  started_at: number
  events: number
  status_code: number | null
  latency_ms: number
  error: string | null
}
