// A sender activated as its owner would activate it (API.md 4.4), for the benchmarks that create email campaigns.
import { json } from './http.js'
import type { DbPeek } from './db-peek.js'

export const BENCH_SENDER = { email: 'news@sender.example.com', name: 'Tidings Bench' }

/**
 * Adds the sender and activates it: asks for the code, reads it from the emailed message as its recipient would
 * (from the stored outbox row: GET /outbox hides codes) and sends it back.
 */
export async function activateSender(base: string, headers: Record<string, string>, peek: DbPeek, sender = BENCH_SENDER): Promise<void> {
  const post = (url: string, body: unknown) => json(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  await post(`${base}/senders`, sender)
  await json(`${base}/senders/${encodeURIComponent(sender.email)}/code`, { headers })
  const message = await peek.row<{ text: string }>("select text from outbox where kind = 'sender_code' and to_email = ? order by id desc", [sender.email])
  const code = /\b(\d{6,})\b/.exec(message?.text ?? '')?.[1]
  if (!code) throw new Error(`no code in the activation email: ${message?.text}`)
  await post(`${base}/senders/${encodeURIComponent(sender.email)}/code`, { code })
}
