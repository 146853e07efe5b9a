// One SMTP connection to the relay, kept open for message after message (RFC 5321, with PIPELINING, RFC 2920).
// Opening it: the greeting, EHLO (HELO for an old server), STARTTLS by the rules of smtp-settings.ts, AUTH
// PLAIN or LOGIN. Then each message is one round trip: the envelope (MAIL FROM, RCPT TO, DATA) goes in one
// write; when the relay answers 354 the message goes into the socket as it was built (mime.ts: SMTP data
// already, no dot-stuffing pass, no copy), its final dot, and in the same write the next message's envelope.
// nodemailer's SMTPConnection spends two round trips, a Transform stream and a byte-by-byte dot-stuffing copy
// per message: 80–95 µs of CPU a message against 20–25 µs here, sending the same 9 KB messages to smtp-sink.
//
// Messages come from the pool (smtp-pool.ts) through `take`. A message whose data was never written when the
// connection is lost is handed back untouched (`unfinished`); one whose data went may or may not have arrived.
import { connect as netConnect, isIP, type Socket } from 'node:net'
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls'
import { hostname } from 'node:os'
import { ReplyReader, SmtpError, type Reply } from './smtp-replies.js'

export interface SessionOptions {
  host: string
  port: number
  /** TLS from the first byte (smtps://). */
  secure: boolean
  /** STARTTLS: `required` fails without it, `offered` uses it when the relay offers it, `never` does not. */
  starttls: 'required' | 'offered' | 'never'
  /** With `offered`: go on in clear when the relay refuses the STARTTLS command. */
  opportunisticTLS: boolean
  /** The name this client gives in EHLO. */
  name?: string
  auth?: { user: string; pass: string; method?: 'PLAIN' | 'LOGIN' }
  tls: ConnectionOptions
  localAddress?: string
  /** From the connect to the end of the handshake. */
  connectionTimeoutMs: number
  greetingTimeoutMs: number
  /** Inactivity with replies awaited: the connection is given up. An idle connection is closed instead. */
  socketTimeoutMs: number
  /** The connection is closed after this many messages (after those in flight). */
  maxMessages: number
}

/** The message as SMTP data: CRLF line ends, no line starting with '.', ending with CRLF (mime.ts). */
export interface WireMessage {
  head: string
  body: readonly Buffer[]
}

export interface Transaction {
  from: string
  to: string
  message: WireMessage
  done(result: { ok: true; reply: Reply } | { ok: false; error: SmtpError }): void
  /** Set once a byte of the message went into the connection: from then on, trying again may send it twice. */
  dataSent: boolean
  /** A refusal of MAIL FROM or RCPT TO, known before the answer to DATA. */
  envelopeError?: SmtpError
}

type Expect = (reply: Reply) => void

const BLANK_LINE = Buffer.from('\r\n')
const WRITTEN: WireMessage = { head: '', body: [] }
const END_OF_DATA = Buffer.from('.\r\n')
const NON_ASCII = /[^\x00-\x7f]/
/** Characters that would end or break an address in MAIL FROM or RCPT TO. */
const NOT_IN_PATH = /[\x00-\x1f\x7f<>]/

export class SmtpSession {
  private socket!: Socket
  private readonly reader = new ReplyReader((reply) => this.onReply(reply))
  private readonly expecting: Expect[] = []
  private extensions = new Set<string>()
  private authMechanisms = new Set<string>()
  private ready = false
  /** The handshake succeeded: the relay was reachable and took the settings. */
  wasOpen = false
  private closing = false
  private closed = false
  /** The transaction whose envelope replies are awaited: the next one waits until the 354 came. */
  private envelopeOf: Transaction | undefined
  /** After a refused envelope the relay may hold a half-open transaction: RSET before the next one. */
  private needsReset = false
  private readonly active = new Set<Transaction>()
  private messages = 0
  private failure: SmtpError | undefined
  private abortOpen: ((error: SmtpError) => void) | undefined

  constructor(
    private readonly options: SessionOptions,
    private readonly take: () => Transaction | undefined,
    private readonly onClosed: (session: SmtpSession, failure: SmtpError | undefined, unfinished: Transaction[]) => void,
  ) {}

  /** Connects and sets the session up; rejects (and closes) when that fails or takes longer than connectionTimeoutMs. */
  open(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.abortOpen = reject
      const timer = setTimeout(() => this.destroy(new SmtpError(`no SMTP session with ${this.options.host}:${this.options.port} within ${this.options.connectionTimeoutMs} ms`, 'ETIMEDOUT')), this.options.connectionTimeoutMs)
      this.handshake().then(
        () => {
          clearTimeout(timer)
          this.abortOpen = undefined
          this.ready = true
          this.wasOpen = true
          this.socket.setTimeout(this.options.socketTimeoutMs)
          resolve()
        },
        (err: unknown) => {
          clearTimeout(timer)
          this.destroy(err instanceof SmtpError ? err : new SmtpError(String(err), 'ECONNECTION', undefined, { cause: err }))
        },
      )
    })
  }

  /** Starts the next message when nothing holds the envelope slot; called when the pool has work. */
  pump(): void {
    while (this.ready && !this.closing && this.envelopeOf === undefined && this.messages < this.options.maxMessages) {
      const tx = this.take()
      if (!tx) break
      if (NOT_IN_PATH.test(tx.from) || NOT_IN_PATH.test(tx.to)) {
        tx.done({ ok: false, error: new SmtpError(`${JSON.stringify(NOT_IN_PATH.test(tx.to) ? tx.to : tx.from)} cannot be written in an SMTP command`, 'EENVELOPE') })
        continue
      }
      this.startEnvelope(tx)
    }
    if (this.messages >= this.options.maxMessages) this.quit()
  }

  /** Sends QUIT once what is in flight is answered; new messages go elsewhere. */
  quit(): void {
    if (this.closed || this.closing) return
    this.closing = true
    if (this.active.size > 0) return
    if (!this.ready) return this.destroy(undefined)
    this.socket.write('QUIT\r\n')
    this.expecting.push(() => this.socket.end())
    // A relay that does not answer QUIT is not waited for.
    setTimeout(() => this.destroy(undefined), 1000).unref()
  }

  /** Cuts the connection; what is in flight fails. */
  abort(): void {
    this.destroy(new SmtpError('the SMTP channel was closed', 'ECONNECTION'))
  }

  // ---- the transactions ----------------------------------------------------------------------------------

  private startEnvelope(tx: Transaction): void {
    this.envelopeOf = tx
    this.active.add(tx)
    const smtputf8 = this.extensions.has('SMTPUTF8') && (NON_ASCII.test(tx.from) || NON_ASCII.test(tx.to)) ? ' SMTPUTF8' : ''
    const mail = `MAIL FROM:<${tx.from}>${smtputf8}\r\n`
    const rcpt = `RCPT TO:<${tx.to}>\r\n`
    const reset = this.needsReset
    this.needsReset = false
    const onReset = (reply: Reply) => {
      if (reply.code !== 250) this.destroy(new SmtpError('the relay refused RSET', 'EPROTOCOL', reply))
    }
    if (this.extensions.has('PIPELINING')) {
      if (reset) this.expecting.push(onReset)
      this.socket.write((reset ? 'RSET\r\n' : '') + mail + rcpt + 'DATA\r\n')
      this.expecting.push(
        (reply) => this.noteEnvelopeReply(tx, reply, 'MAIL FROM'),
        (reply) => this.noteEnvelopeReply(tx, reply, 'RCPT TO'),
        (reply) => this.onDataCommandReply(tx, reply),
      )
      return
    }
    // One command at a time: each waits for the answer to the one before.
    const sendMail = () => {
      this.socket.write(mail)
      this.expecting.push((reply) => {
        if (!this.noteEnvelopeReply(tx, reply, 'MAIL FROM')) return this.endEnvelope(tx, tx.envelopeError!)
        this.socket.write(rcpt)
        this.expecting.push((reply) => {
          if (!this.noteEnvelopeReply(tx, reply, 'RCPT TO')) return this.endEnvelope(tx, tx.envelopeError!)
          this.socket.write('DATA\r\n')
          this.expecting.push((reply) => this.onDataCommandReply(tx, reply))
        })
      })
    }
    if (!reset) return sendMail()
    this.socket.write('RSET\r\n')
    this.expecting.push((reply) => {
      onReset(reply)
      if (!this.socket.destroyed) sendMail()
    })
  }

  /** Keeps the first refusal of the envelope; whether the command was accepted. */
  private noteEnvelopeReply(tx: Transaction, reply: Reply, command: string): boolean {
    if (reply.code >= 200 && reply.code < 300) return true
    tx.envelopeError ??= new SmtpError(`${command} refused`, 'EENVELOPE', reply)
    return false
  }

  private onDataCommandReply(tx: Transaction, reply: Reply): void {
    if (reply.code !== 354) return this.endEnvelope(tx, tx.envelopeError ?? new SmtpError('DATA refused', 'EENVELOPE', reply))
    if (tx.envelopeError) {
      // RFC 2920 3.1: DATA must be refused when no recipient was accepted. A relay that took it all the same
      // gets an empty message, to go back to a known state; its answer to that says nothing about ours.
      this.socket.write(END_OF_DATA)
      this.expecting.push(() => {})
      return this.endEnvelope(tx, tx.envelopeError)
    }
    this.envelopeOf = undefined
    const socket = this.socket
    socket.cork()
    socket.write(tx.message.head)
    socket.write(BLANK_LINE)
    for (const piece of tx.message.body) socket.write(piece)
    socket.write(END_OF_DATA)
    tx.dataSent = true
    // The socket holds what it has not written yet; the message is let go of, not kept until the relay answers.
    tx.message = WRITTEN
    this.messages++
    this.expecting.push((reply) => {
      if (reply.code >= 200 && reply.code < 300) this.finish(tx, { ok: true, reply })
      else this.finish(tx, { ok: false, error: new SmtpError('message refused', 'EMESSAGE', reply) })
    })
    // The next message's envelope leaves with this one's data: one round trip a message.
    this.pump()
    socket.uncork()
  }

  /** A transaction that ends before its data: the relay refused the sender, the recipient or DATA. */
  private endEnvelope(tx: Transaction, error: SmtpError): void {
    this.envelopeOf = undefined
    this.needsReset = true
    this.finish(tx, { ok: false, error })
    this.pump()
  }

  private finish(tx: Transaction, result: Parameters<Transaction['done']>[0]): void {
    this.active.delete(tx)
    tx.done(result)
    if (this.closing && this.active.size === 0) {
      this.closing = false
      this.quit()
    }
  }

  // ---- the connection --------------------------------------------------------------------------------------

  private onReply(reply: Reply): void {
    const expect = this.expecting.shift()
    if (expect) expect(reply)
    // 421: the relay is closing the connection (RFC 5321 3.8), whatever the command; an unasked reply too.
    if (reply.code === 421 || !expect) this.destroy(reply.code === 421 || this.active.size > 0 ? new SmtpError('the relay closed the session', 'ECONNECTION', reply) : undefined)
  }

  private attach(socket: Socket): void {
    this.socket = socket
    socket.setEncoding('latin1')
    socket.on('data', this.onData)
    socket.on('error', this.onError)
    socket.on('close', this.onClose)
    socket.on('timeout', this.onTimeout)
  }

  private detach(socket: Socket): void {
    socket.off('data', this.onData)
    socket.off('error', this.onError)
    socket.off('close', this.onClose)
    socket.off('timeout', this.onTimeout)
  }

  private readonly onData = (chunk: string): void => {
    try {
      this.reader.push(chunk)
    } catch (err) {
      this.destroy(err as SmtpError)
    }
  }

  private readonly onError = (err: Error): void => {
    this.failure ??= new SmtpError(err.message, 'ECONNECTION', undefined, { cause: err })
  }

  private readonly onTimeout = (): void => {
    if (this.expecting.length === 0 && this.active.size === 0) return this.quit()
    this.destroy(new SmtpError(`no answer from the relay for ${this.options.socketTimeoutMs} ms`, 'ETIMEDOUT'))
  }

  private readonly onClose = (): void => {
    if (this.closed) return
    this.closed = true
    this.ready = false
    const failure = this.failure ?? (this.active.size > 0 || this.abortOpen ? new SmtpError('the relay closed the connection', 'ECONNECTION') : undefined)
    this.abortOpen?.(failure!)
    this.abortOpen = undefined
    const unfinished = [...this.active]
    this.active.clear()
    this.expecting.length = 0
    this.onClosed(this, failure, unfinished)
  }

  private destroy(failure: SmtpError | undefined): void {
    if (failure) this.failure ??= failure
    if (this.socket && !this.socket.destroyed) this.socket.destroy()
    else this.onClose()
  }

  // ---- the handshake ---------------------------------------------------------------------------------------

  private command(line: string): Promise<Reply> {
    return new Promise((resolve) => {
      this.expecting.push(resolve)
      this.socket.write(`${line}\r\n`)
    })
  }

  private nextReply(): Promise<Reply> {
    return new Promise((resolve) => this.expecting.push(resolve))
  }

  private async handshake(): Promise<void> {
    const { host, port, secure, tls } = this.options
    const servername = tls.servername ?? (isIP(host) ? undefined : host)
    const { localAddress } = this.options
    // tls.connect takes net.connect's options too (localAddress); its types do not say so.
    const socket = secure ? tlsConnect({ ...tls, host, port, servername, localAddress } as ConnectionOptions) : netConnect({ host, port, localAddress })
    this.attach(socket)
    socket.setNoDelay(true)
    await new Promise<void>((resolve) => socket.once(secure ? 'secureConnect' : 'connect', resolve))
    socket.setTimeout(this.options.greetingTimeoutMs)
    const greeting = await this.nextReply()
    if (greeting.code !== 220) throw new SmtpError('not an SMTP greeting', 'EPROTOCOL', greeting)
    socket.setTimeout(0)
    await this.hello()
    if (!secure) await this.startTls(servername)
    if (this.options.auth && this.extensions.has('AUTH')) await this.login(this.options.auth)
  }

  private async hello(): Promise<void> {
    const name = this.options.name ?? clientName()
    const ehlo = await this.command(`EHLO ${name}`)
    if (ehlo.code === 250) {
      const keywords = ehlo.lines.slice(1).map((line) => line.trim().split(/[\s=]+/))
      this.extensions = new Set(keywords.map((words) => words[0]!.toUpperCase()))
      this.authMechanisms = new Set(keywords.filter((words) => words[0]!.toUpperCase() === 'AUTH').flatMap((words) => words.slice(1).map((m) => m.toUpperCase())))
      return
    }
    const helo = await this.command(`HELO ${name}`)
    if (helo.code !== 250) throw new SmtpError('EHLO and HELO refused', 'EPROTOCOL', helo)
    this.extensions = new Set()
  }

  private async startTls(servername: string | undefined): Promise<void> {
    const { starttls, opportunisticTLS } = this.options
    if (starttls === 'never') return
    if (!this.extensions.has('STARTTLS')) {
      if (starttls === 'required') throw new SmtpError('the relay does not offer STARTTLS, which a relay URL with a password requires (TIDINGS_SMTP_INSECURE)', 'ETLS')
      return
    }
    const answer = await this.command('STARTTLS')
    if (answer.code !== 220) {
      if (starttls === 'offered' && opportunisticTLS) return
      throw new SmtpError('STARTTLS refused', 'ETLS', answer)
    }
    const plain = this.socket
    this.detach(plain)
    const secured: TLSSocket = tlsConnect({ ...this.options.tls, socket: plain, servername })
    // Before attach(): a failed handshake is reported as a TLS failure, not as a lost connection.
    secured.once('error', (err) => (this.failure = new SmtpError(`STARTTLS failed: ${err.message}`, 'ETLS', undefined, { cause: err })))
    this.attach(secured)
    await new Promise<void>((resolve) => secured.once('secureConnect', resolve))
    await this.hello()
  }

  private async login(auth: NonNullable<SessionOptions['auth']>): Promise<void> {
    const offered = this.authMechanisms
    const method = auth.method ?? (offered.has('PLAIN') || offered.size === 0 ? 'PLAIN' : offered.has('LOGIN') ? 'LOGIN' : undefined)
    if (!method) throw new SmtpError(`the relay offers AUTH ${[...offered].join(' ')}, none of PLAIN and LOGIN`, 'EAUTH')
    const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')
    let answer: Reply
    if (method === 'PLAIN') answer = await this.command(`AUTH PLAIN ${base64(`\0${auth.user}\0${auth.pass}`)}`)
    else {
      answer = await this.command('AUTH LOGIN')
      if (answer.code === 334) answer = await this.command(base64(auth.user))
      if (answer.code === 334) answer = await this.command(base64(auth.pass))
    }
    if (answer.code !== 235) throw new SmtpError(`AUTH ${method} refused`, 'EAUTH', answer)
  }
}

/** The host's name if it is a domain name, or an address literal, as nodemailer says EHLO. */
function clientName(): string {
  const name = hostname()
  return name.includes('.') ? name : '[127.0.0.1]'
}
