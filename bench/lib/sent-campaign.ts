// A real sent email campaign for the tracking benchmarks: a list of generated contacts, an active sender (its code
// read from the captured activation email with `tidings outbox`, as an operator would: GET /outbox hides it), one campaign sent through the capture channel (no relay is configured),
// and the tracking links of every message as its recipient got it, read from GET /outbox?campaign_id=.
import { json } from './http.js'
import { postContacts } from './contacts.js'
import { run } from './processes.js'
import { createList, type BenchAccount, type BenchDatabase } from './tidings.js'

const SENDER = { email: 'news@sender.example.com', name: 'Tidings Bench' }
/** The link every message carries; not personalised, so each click of link 0 redirects to exactly this. */
export const CLICK_TARGET = 'https://shop.example/sale?x=1'
const HTML = `<html><body><p>Hello {{name}}</p><p><a href="${CLICK_TARGET}">Sale</a></p></body></html>`
const OUTBOX_PAGE = 100
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export interface TrackedMessage {
  /** /t/{token}/open.gif */
  pixel: string
  /** /t/{token}/c/0 */
  click: string
}

/** Settings of a server that sends a campaign at once into the capture channel. */
export function captureSendingEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { TIDINGS_SMTP_URL: _relay, ...rest } = env
  return { ...rest, TIDINGS_EMAIL_RATE: '0', TIDINGS_MODERATION: 'auto', TIDINGS_BOUNCE_PORT: '0' }
}

/**
 * Sends a campaign of `count` messages on the server (configured by captureSendingEnv) and returns the tracking
 * paths of each message, in message order.
 */
export async function sendTrackedCampaign(
  database: BenchDatabase,
  account: BenchAccount,
  base: string,
  headers: Record<string, string>,
  count: number,
): Promise<TrackedMessage[]> {
  const list = await createList(base, headers, 'tracking')
  await postContacts(base, headers, list, { from: 0, to: count, batch: 10_000, concurrency: 2, prefix: 't' })
  await activateSender(database, account, base, headers)
  const created = await json<{ id: number }>(`${base}/campaigns`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ sender_name: SENDER.name, sender_email: SENDER.email, subject: 'Hello {{name}}', body: Buffer.from(HTML).toString('base64'), list_id: list, name: 'tracking bench' }),
  })
  if (typeof created.id !== 'number') throw new Error(`POST /campaigns answered ${JSON.stringify(created)}`)
  await waitUntilSent(base, headers, created.id)
  return trackedMessages(base, headers, created.id, count)
}

async function waitUntilSent(base: string, headers: Record<string, string>, id: number): Promise<void> {
  const deadline = Date.now() + 600_000
  for (;;) {
    const answer = await json<{ status: number | string } | { status: number | string }[]>(`${base}/campaigns/${id}`, { headers })
    const status = Number((Array.isArray(answer) ? answer[0] : answer)?.status)
    if (status === 3) return
    if (Date.now() > deadline) throw new Error(`campaign ${id} not sent within 10 minutes: ${JSON.stringify(answer)}`)
    await sleep(500)
  }
}

/** Every message's pixel and first link, from its HTML as sent; 4 pages in flight. */
async function trackedMessages(base: string, headers: Record<string, string>, campaignId: number, count: number): Promise<TrackedMessage[]> {
  const pages = Math.ceil(count / OUTBOX_PAGE)
  const out: TrackedMessage[][] = []
  let next = 0
  const worker = async () => {
    while (next < pages) {
      const page = next++
      const emails = await json<{ kind: string; status: string; html: string }[]>(`${base}/outbox?campaign_id=${campaignId}&limit=${OUTBOX_PAGE}&offset=${page * OUTBOX_PAGE}`, { headers })
      out[page] = emails.map((e) => {
        if (e.status !== 'captured') throw new Error(`a message of the campaign is ${e.status}, not captured`)
        const pixel = /\/t\/[^"'\s/]+\/open\.gif/.exec(e.html)?.[0]
        const click = /\/t\/[^"'\s/]+\/c\/0(?=["'\s])/.exec(e.html)?.[0]
        if (!pixel || !click) throw new Error(`no pixel or link in a sent message: ${e.html.slice(0, 300)}`)
        return { pixel, click }
      })
    }
  }
  await Promise.all(Array.from({ length: 4 }, worker))
  const messages = out.flat()
  if (messages.length !== count) throw new Error(`the outbox holds ${messages.length} messages of the campaign, expected ${count}`)
  if (new Set(messages.map((m) => m.pixel)).size !== count) throw new Error('two messages share a tracking token')
  return messages
}

/** Adds the sender and activates it: asks for the code, reads it from the captured email and sends it back. */
async function activateSender(database: BenchDatabase, account: BenchAccount, base: string, headers: Record<string, string>): Promise<void> {
  const post = (url: string, body: unknown) => json(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  await post(`${base}/senders`, SENDER)
  await json(`${base}/senders/${encodeURIComponent(SENDER.email)}/code`, { headers })
  const deadline = Date.now() + 30_000
  for (;;) {
    const outbox = JSON.parse(run('node', ['bin/tidings.js', 'outbox', '--account', String(account.id)], database.env)) as { kind: string; to: string; subject: string; text: string; status: string }[]
    const email = outbox.filter((e) => e.kind === 'sender_code' && e.to === SENDER.email).at(-1)
    if (email?.status === 'sent' || email?.status === 'captured') {
      const code = /\b(\d{8})\b/.exec(`${email.subject}\n${email.text}`)?.[1]
      if (!code) throw new Error(`no code in the activation email: ${email.subject}`)
      await post(`${base}/senders/${encodeURIComponent(SENDER.email)}/code`, { code })
      return
    }
    if (Date.now() > deadline) throw new Error(`the activation email was not sent within 30 s: ${JSON.stringify(email ?? outbox.slice(-3))}`)
    await sleep(100)
  }
}
