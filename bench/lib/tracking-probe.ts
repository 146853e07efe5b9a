// Open pixels and click redirects of a campaign's sent messages, timed one at a time (bench:scale-of-work's sending
// scenario): while a big campaign sends, and on the idle server as the reference. Each hit goes to a message not hit
// before, so each is a first open or first click, which writes (a hit on an opened message only reads).
//
// The tokens are made here, with the key the server signs with (TIDINGS_SECRET_KEY, or the one it generated and
// keeps in `settings`), by the function that signs the links of the emails: reading them from GET /outbox would load
// the server being measured. checkTokensAsSent() compares them with the links of the emails as their recipients got
// them, and every answer is checked (a wrong token answers 404).
import { Agent, request } from 'node:http'
import { messageToken } from '../../src/tracking/message-links.js'
import { checkAnswer, type HitKind } from './tracking-hits.js'
import { json } from './http.js'
import type { DbPeek } from './db-peek.js'

/** messages.status of a message the channel took (sent, or captured: delivered). */
const SENT_STATUSES = '(1, 2)'
/** Sent message ids read from the database at a time. */
const ID_PAGE = 200

export interface TimedAnswer {
  ms: number
  status: number
  headers: Record<string, string>
  body: string
}

/** GETs over one kept-alive connection, one at a time, timed from writing the request to the answer's last byte. */
export class SequentialClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 })
  private readonly host: string
  private readonly port: string

  constructor(base: string) {
    const url = new URL(base)
    this.host = url.hostname
    this.port = url.port
  }

  /** A pixel carries no Authorization header, as a mail program would load it; an API call passes its own. */
  get(path: string, headers: Record<string, string> = {}): Promise<TimedAnswer> {
    return new Promise((resolve, reject) => {
      const started = process.hrtime.bigint()
      const req = request({ host: this.host, port: this.port, path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6
          const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]))
          resolve({ ms, status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString() })
        })
      })
      req.on('error', reject)
      req.end()
    })
  }

  /** A pixel or click of the message, its answer checked (200 and the GIF; 302 to the campaign's link). */
  async hit(kind: HitKind, messageId: number, key: Buffer): Promise<number> {
    const path = hitPath(kind, key, messageId)
    const answer = await this.get(path)
    const wrong = checkAnswer(kind, answer.status, answer.body, answer.headers)
    if (wrong !== undefined) throw new Error(`GET ${path} (message ${messageId}): ${wrong}`)
    return answer.ms
  }

  close(): void {
    this.agent.destroy()
  }
}

export function hitPath(kind: HitKind, key: Buffer, messageId: number): string {
  const token = messageToken(key, messageId)
  return kind === 'pixel' ? `/t/${token}/open.gif` : `/t/${token}/c/0`
}

/** The key that signs the links of the server's emails (signing-key.ts). */
export async function signingKeyOf(peek: DbPeek, env: NodeJS.ProcessEnv): Promise<Buffer> {
  if (env.TIDINGS_SECRET_KEY) return Buffer.from(env.TIDINGS_SECRET_KEY, 'utf8')
  const row = await peek.row<{ value: string }>("select value from settings where key = 'signing_key'")
  if (!row) throw new Error('the server has no signing key yet (it makes one when it signs its first link)')
  return Buffer.from(row.value, 'base64url')
}

/** The ids of a campaign's sent messages, each given once, read from the database beside the server. */
export class SentMessages {
  private readonly ready: number[] = []
  private after = 0

  constructor(
    private readonly peek: DbPeek,
    private readonly campaignId: number,
  ) {}

  /** The next sent message not given before; undefined when none is sent yet beyond those given. */
  async next(): Promise<number | undefined> {
    if (this.ready.length === 0) {
      const rows = await this.peek.all<{ id: number }>(
        `select id from messages where campaign_id = ? and status in ${SENT_STATUSES} and id > ? order by id limit ${ID_PAGE}`,
        [this.campaignId, this.after],
      )
      for (const r of rows) this.ready.push(Number(r.id))
      if (rows.length > 0) this.after = this.ready.at(-1)!
    }
    return this.ready.shift()
  }
}

/** Throws unless the pixel and link of the campaign's first emails, as sent (GET /outbox), are the ones made here. */
export async function checkTokensAsSent(base: string, headers: Record<string, string>, campaignId: number, peek: DbPeek, key: Buffer): Promise<void> {
  const emails = await json<{ html: string }[]>(`${base}/outbox?campaign_id=${campaignId}&limit=3`, { headers })
  const ids = await peek.all<{ id: number }>('select id from messages where campaign_id = ? order by id limit 3', [campaignId])
  if (emails.length !== 3 || ids.length !== 3) throw new Error(`campaign ${campaignId}: expected 3 emails in the outbox, got ${emails.length}`)
  emails.forEach((email, i) => {
    for (const kind of ['pixel', 'click'] as const) {
      const path = hitPath(kind, key, Number(ids[i]!.id))
      if (!email.html.includes(path)) throw new Error(`the email of message ${ids[i]!.id} does not hold ${path}: ${email.html.slice(0, 300)}`)
    }
  })
}
