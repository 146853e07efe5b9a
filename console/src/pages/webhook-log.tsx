// One webhook's delivery log (the last 200 requests to its URL: time, status code, latency, error) and the events
// given up on for the URL, both Tidings extensions, and the "Send a test event" button (POST …/{id}/test): the test
// is queued and sent by the webhook sender, so the log is read again every half second until its request shows.
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.js'
import { Messages, usePageState } from '../parts/page-state.js'
import type { Webhook } from './webhooks.js'

interface Attempt {
  started: string
  events: number
  status_code: number | null
  latency_ms: number
  error: string | null
}

interface FailedEvent {
  id: number
  event: string
  created: string
  failed: string | null
  error: string | null
}

const BASE = '/v2/email-service/webhook'
/** After a test the log is read every 500 ms, for 15 s at most: the sender looks for work every 250 ms and a receiver has 10 s to answer. */
const WATCH_INTERVAL_MS = 500
const WATCH_READS = 30

export function WebhookLog({ webhook }: { webhook: Webhook }) {
  const state = usePageState(() =>
    Promise.all([api<{ data: Attempt[] }>('GET', `${BASE}/${webhook.id}/deliveries`), api<{ data: FailedEvent[] }>('GET', `${BASE}/${webhook.id}/failed`)]).then(([log, failed]) => ({
      attempts: log.data,
      failed: failed.data,
    })),
  )
  // While a test is on its way: the newest attempt before it, and the reads left.
  const [watch, setWatch] = useState<{ before: string; reads: number }>()
  const newest = JSON.stringify(state.data?.attempts[0] ?? null)

  useEffect(() => {
    if (!watch) return
    if (newest !== watch.before || watch.reads === 0) return setWatch(undefined)
    const timer = setTimeout(() => void state.reload().then(() => setWatch({ ...watch, reads: watch.reads - 1 })), WATCH_INTERVAL_MS)
    return () => clearTimeout(timer)
  }, [watch, newest])

  const sendTest = async () => {
    const before = newest
    if (await state.act(() => api('POST', `${BASE}/${webhook.id}/test`), 'Test event queued: its request shows in the delivery log once sent.')) setWatch({ before, reads: WATCH_READS })
  }

  return (
    <section class="webhook-log" aria-labelledby="webhook-log-title">
      <h2 id="webhook-log-title">Delivery log of {webhook.url}</h2>
      <div class="buttons">
        <button type="button" onClick={() => void sendTest()}>
          Send a test event
        </button>
        <button type="button" class="secondary" onClick={() => void state.reload()}>
          Refresh
        </button>
      </div>
      <Messages state={state} />
      {state.data === undefined ? (
        !state.error && <p>Loading the delivery log…</p>
      ) : state.data.attempts.length === 0 ? (
        <p>No requests made to this URL yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Requests to {webhook.url}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time (UTC)</th>
                <th scope="col" class="num">
                  Status code
                </th>
                <th scope="col" class="num">
                  Latency
                </th>
                <th scope="col" class="num">
                  Events
                </th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {state.data.attempts.map((a, i) => (
                <tr key={`${a.started} ${i}`}>
                  <th scope="row">{a.started}</th>
                  <td data-label="Status code" class="num">
                    {a.status_code ?? 'none'}
                  </td>
                  <td data-label="Latency" class="num">
                    {a.latency_ms.toLocaleString('en')} ms
                  </td>
                  <td data-label="Events" class="num">
                    {a.events}
                  </td>
                  <td data-label="Error">{a.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3>Failed events</h3>
      {state.data &&
        (state.data.failed.length === 0 ? (
          <p>No events were given up on.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">Events given up on for {webhook.url}, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Action</th>
                  <th scope="col">Happened (UTC)</th>
                  <th scope="col">Given up (UTC)</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {state.data.failed.map((e) => (
                  <tr key={e.id}>
                    <th scope="row">{e.id}</th>
                    <td data-label="Action">{e.event}</td>
                    <td data-label="Happened">{e.created}</td>
                    <td data-label="Given up">{e.failed ?? ''}</td>
                    <td data-label="Error">{e.error ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </section>
  )
}
