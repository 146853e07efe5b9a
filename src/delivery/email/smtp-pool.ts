// The connections kept open to the relay (at most `maxConnections`, TIDINGS_SMTP_URL's maxConnections, 10 by
// default) and the messages waiting for one. A connection is opened when messages wait and every open one is
// busy; each takes the next message as soon as its envelope slot is free (smtp-session.ts); it stays open
// between batches and campaigns until the relay closes it. When a connection is lost, a message whose data
// had not gone yet is sent once more on another connection; one whose data went fails as temporary (the
// dispatcher retries it later: it may arrive twice, never not at all).
import { SmtpError, type Reply } from './smtp-replies.js'
import { SmtpSession, type SessionOptions, type Transaction, type WireMessage } from './smtp-session.js'

export interface PoolOptions extends SessionOptions {
  maxConnections: number
}

export type Delivery = { ok: true; reply: Reply } | { ok: false; error: SmtpError }

export class SmtpPool {
  private readonly waiting: Transaction[] = []
  private readonly sessions = new Set<SmtpSession>()
  /** Transactions handed back by a lost connection: sent once more, not twice. */
  private readonly requeued = new WeakSet<Transaction>()
  /** Called when a closing session is gone. */
  private readonly gone = new WeakMap<SmtpSession, () => void>()
  private closed = false
  /** Connections being opened. */
  private opening = 0

  constructor(private readonly options: PoolOptions) {}

  send(from: string, to: string, message: WireMessage): Promise<Delivery> {
    if (this.closed) return Promise.resolve({ ok: false, error: new SmtpError('the SMTP channel is closed', 'ECONNECTION') })
    return new Promise((done) => {
      this.waiting.push({ from, to, message, done, dataSent: false })
      this.dispatch()
    })
  }

  /**
   * Closes every connection: QUIT once what is in flight is answered, cut after `graceMs`. Messages still
   * waiting fail as temporary.
   */
  async close(graceMs = 2000): Promise<void> {
    this.closed = true
    this.failWaiting(new SmtpError('the SMTP channel was closed', 'ECONNECTION'))
    const open = [...this.sessions]
    const cut = setTimeout(() => open.forEach((session) => session.abort()), graceMs)
    await Promise.all(
      open.map(
        (session) =>
          new Promise<void>((resolve) => {
            this.gone.set(session, resolve)
            session.quit()
          }),
      ),
    )
    clearTimeout(cut)
  }

  private readonly take = (): Transaction | undefined => this.waiting.shift()

  private dispatch(): void {
    for (const session of this.sessions) {
      if (this.waiting.length === 0) return
      session.pump()
    }
    // More waiting than the open connections take now: a connection per message not yet promised to one being
    // opened, up to the limit.
    const more = Math.min(this.options.maxConnections - this.sessions.size, this.waiting.length - this.opening)
    for (let i = 0; i < more; i++) this.openSession()
  }

  private openSession(): void {
    const session = new SmtpSession(this.options, this.take, (s, failure, unfinished) => this.onSessionClosed(s, failure, unfinished))
    this.sessions.add(session)
    this.opening++
    session.open().then(
      () => {
        this.opening--
        if (this.closed) session.quit()
        else session.pump()
      },
      (failure: SmtpError) => {
        this.opening--
        // Nothing left to send them: with no other connection open or opening, the relay is out of reach.
        if (this.sessions.size === 0) this.failWaiting(failure)
      },
    )
  }

  private onSessionClosed(session: SmtpSession, failure: SmtpError | undefined, unfinished: Transaction[]): void {
    this.sessions.delete(session)
    this.gone.get(session)?.()
    const lost = failure ?? new SmtpError('the relay closed the connection', 'ECONNECTION')
    for (const tx of unfinished.reverse()) {
      if (!tx.dataSent && !this.requeued.has(tx) && !this.closed) {
        this.requeued.add(tx)
        tx.envelopeError = undefined
        this.waiting.unshift(tx)
      } else tx.done({ ok: false, error: tx.dataSent ? new SmtpError(`no answer to the message: ${lost.message}`, lost.code) : (tx.envelopeError ?? lost) })
    }
    // A connection that failed to open does not open the next one: its rejection decides (openSession).
    if (session.wasOpen && this.waiting.length > 0 && !this.closed) this.dispatch()
  }

  private failWaiting(failure: SmtpError): void {
    for (const tx of this.waiting.splice(0)) tx.done({ ok: false, error: failure })
  }
}
