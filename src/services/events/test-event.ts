// "Send a test event" (a Tidings extension, issue 21 item 6): one event queued for a webhook's URL like any event,
// so the webhook sender delivers it as it does real ones (signed, retried, in the delivery log, refused for private
// addresses) and the API process itself never connects to the URL.
import { insertEvents } from '../../storage/repos/events.js'
import { dueAt } from '../../storage/repos/webhook-queue.js'
import { MICRO, takeSendTokens } from '../../storage/repos/send-rate-buckets.js'
import { AppError } from '../errors.js'
import type { Deps } from '../types.js'
import { getWebhook } from './webhooks.js'

/** The `event` of a test event: no action of API.md 6, so a receiver that acts on actions ignores it. */
export const TEST_EVENT = 'test'

/**
 * One test per URL (endpoint: webhooks of one URL share it) every 5 seconds. A person clicking the button waits
 * about one delivery's round trip before looking at the log; more would only fill the receiver's queue, and a
 * receiver down for a while must not find hundreds of tests in front of the real events when it comes back.
 */
const TEST_INTERVAL_SECONDS = 5

/**
 * Queues a test event for the webhook's URL and lets its next request be made now (a receiver just fixed is tried
 * at once, not after the rest of its backoff). The per-URL limit is a token bucket of one in the table the send
 * rates use (repos/send-rate-buckets.ts): one atomic statement, shared by every API process.
 */
export async function sendTestEvent(deps: Deps, accountId: number, webhookId: number): Promise<{ eventId: number }> {
  const webhook = await getWebhook(deps, accountId, webhookId)
  const now = deps.now()
  const bucket = { channel: `webhook-test:${webhook.endpointId}`, accountId, ratePerSecond: 1 / TEST_INTERVAL_SECONDS, capacity: 1 }
  const taken = await takeSendTokens(deps.db, bucket, 1, now)
  if (taken.granted === 0) {
    const waitSeconds = Math.max(1, Math.ceil((MICRO - taken.microTokensLeft) / taken.microPerMs / 1000))
    throw new AppError('too_many_requests', `A test event was sent to this URL less than ${TEST_INTERVAL_SECONDS} seconds ago: try again in ${waitSeconds} s`, {
      headers: { 'retry-after': String(waitSeconds) },
    })
  }
  const payload = { event: TEST_EVENT, timestamp: Math.floor(now / 1000), webhook_id: webhook.id, webhook_action: webhook.action }
  const [eventId] = await deps.db.transaction().execute(async (tx) => {
    const ids = await insertEvents(tx, [{ accountId, action: TEST_EVENT, payload, createdAt: now, endpoints: [webhook.endpointId] }])
    await dueAt(tx, webhook.endpointId, now)
    return ids
  })
  return { eventId: eventId! }
}
