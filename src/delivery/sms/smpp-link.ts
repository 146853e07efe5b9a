// One bind_transceiver to the SMSC, kept up: connect (TCP, or TLS for ssmpp://), bind, enquire_link every N
// seconds (no answer within the response timeout closes the connection), and after a failed or lost bind a new
// attempt 1 s later, doubling to 30 s. Requests wait for their response with a timeout and learn when the
// connection drops under them; requests from the SMSC (deliver_sm, data_sm) go to the owner to answer.
import { isIP, type Socket } from 'node:net'
import type smpp from 'smpp'
import { smppPackage } from './smpp-loader.js'
import type { Logger } from 'pino'
import { describeStatus, STATUS } from './smpp-status.js'

export interface SmppTarget {
  host: string
  port: number
  tls: boolean
  systemId: string
  password: string
  systemType: string
}

export interface SmppLinkOptions {
  target: SmppTarget
  log: Logger
  enquireLinkMs: number
  responseTimeoutMs: number
  reconnectMs: { first: number; max: number }
  /** A request from the SMSC; `respond(status)` answers it (once) on the connection it came on. */
  onRequest(pdu: smpp.PDU, respond: (status: number) => void): void
  onBound(): void
  onDown(reason: string): void
}

export type LinkState = 'connecting' | 'bound' | 'down' | 'closed'
export type Response = { pdu: smpp.PDU } | { lost: string }

export const CONNECTION_DROPPED = 'the SMSC connection dropped'

/** smpp://system_id:password@host:port (ssmpp:// for TLS), `?system_type=` optional. */
export function smppTargetOf(url: string): SmppTarget {
  const parsed = new URL(url)
  const tls = parsed.protocol === 'ssmpp:'
  if (!tls && parsed.protocol !== 'smpp:') throw new Error(`an SMPP URL starts with smpp:// or ssmpp://, not ${parsed.protocol}//`)
  if (!parsed.hostname || !parsed.username) throw new Error('an SMPP URL names the system_id and the host: smpp://system_id:password@host:port')
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    // The ports the package uses by default: 2775 is SMPP's registered port; 3550 for TLS.
    port: parsed.port ? Number(parsed.port) : tls ? 3550 : 2775,
    tls,
    systemId: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    systemType: parsed.searchParams.get('system_type') ?? '',
  }
}

export class SmppLink {
  state: LinkState = 'connecting'
  private session: smpp.Session | undefined
  private lastReason = ''
  private reconnectDelay: number
  private readonly inFlight = new Set<(reason: string) => void>()
  private timers: { setup?: NodeJS.Timeout; keepAlive?: NodeJS.Timeout; reconnect?: NodeJS.Timeout } = {}

  constructor(private readonly options: SmppLinkOptions) {
    this.reconnectDelay = options.reconnectMs.first
    this.connect()
  }

  /** Why requests cannot go out now. */
  unavailableReason(): string {
    if (this.state === 'closed') return 'the SMSC channel is closed'
    return `not bound to the SMSC: ${this.lastReason || 'connecting'}`
  }

  /** Sends a request over the bind; resolves with the response, or `lost` (not bound, dropped, timed out). */
  request(command: string, fields: Record<string, unknown>): Promise<Response> {
    const session = this.session
    if (this.state !== 'bound' || !session) return Promise.resolve({ lost: this.unavailableReason() })
    return this.call(session, command, fields)
  }

  /** Drops the connection (the next bind follows after the usual pause). */
  reconnect(reason: string): void {
    if (this.session && this.state === 'bound') this.abandon(this.session, reason)
  }

  /** Runs `write` with the socket corked: the PDUs it sends leave in one write. */
  corked(write: () => void): void {
    corkedWrite(this.session?.socket, write)
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return
    const session = this.session
    const wasBound = this.state === 'bound'
    this.state = 'closed'
    this.clearTimers()
    for (const lose of [...this.inFlight]) lose('the SMSC channel was closed')
    if (!session || session.socket.closed) return
    // SMPP 3.4 §4.2: unbind before closing; an SMSC that does not answer within a second is not waited for.
    if (wasBound) await Promise.race([this.call(session, 'unbind', {}), delay(1000)])
    await new Promise<void>((resolve) => {
      if (session.socket.closed) return resolve()
      session.socket.once('close', () => resolve())
      session.close()
      setTimeout(() => session.destroy(), 1000).unref()
    })
  }

  private connect(): void {
    if (this.state === 'closed') return
    this.state = 'connecting'
    const { target, log } = this.options
    // The certificate is checked against the host name (RFC 6066 forbids an IP address as the server name).
    const servername = target.tls && isIP(target.host) === 0 ? target.host : undefined
    const session = smppPackage().connect({ host: target.host, port: target.port, tls: target.tls, servername })
    this.session = session
    // Small PDUs, each waited for: Nagle's algorithm would hold them for the peer's delayed ACK.
    session.socket.setNoDelay(true)
    this.timers.setup = setTimeout(() => this.abandon(session, `no bind within ${this.options.responseTimeoutMs / 1000} s`), this.options.responseTimeoutMs)
    session.on(target.tls ? 'secureConnect' : 'connect', () => {
      void this.call(session, 'bind_transceiver', { system_id: target.systemId, password: target.password, system_type: target.systemType }).then((response) => {
        if ('lost' in response) return
        if (response.pdu.command_status === STATUS.OK) return this.bound(session)
        this.abandon(session, `bind refused: ${describeStatus(response.pdu.command_status)}`)
      })
    })
    session.on('pdu', (pdu: smpp.PDU) => this.receive(session, pdu))
    // The reason reaches messages' last_error, which accounts read (GET /outbox): the error's code only, never
    // its text, which names the SMSC's address ("connect ECONNREFUSED 10.0.0.5:2775"). The log keeps it whole.
    session.on('error', (err: NodeJS.ErrnoException) => {
      log.warn({ err, host: target.host, port: target.port }, 'SMPP connection error')
      this.abandon(session, `network error ${err.code ?? 'on the SMSC connection'}`)
    })
    session.on('close', () => this.closed(session))
    log.debug({ host: target.host, port: target.port, systemId: target.systemId }, 'connecting to the SMSC')
  }

  private bound(session: smpp.Session): void {
    if (session !== this.session || this.state === 'closed') return
    clearTimeout(this.timers.setup)
    this.state = 'bound'
    this.lastReason = ''
    this.reconnectDelay = this.options.reconnectMs.first
    const { host, port, systemId } = this.options.target
    this.options.log.info({ host, port, systemId }, 'bound to the SMSC (bind_transceiver)')
    this.timers.keepAlive = setInterval(() => this.enquireLink(session), this.options.enquireLinkMs)
    this.options.onBound()
  }

  private enquireLink(session: smpp.Session): void {
    void this.call(session, 'enquire_link', {}).then((response) => {
      if ('lost' in response && session === this.session && this.state === 'bound') this.abandon(session, response.lost)
    })
  }

  /** Ends a connection that failed; `closed` follows and plans the next attempt. */
  private abandon(session: smpp.Session, reason: string): void {
    if (session === this.session && this.state !== 'closed') this.lastReason = reason
    session.destroy()
  }

  private closed(session: smpp.Session): void {
    if (session !== this.session) return
    const wasBound = this.state === 'bound'
    this.session = undefined
    clearTimeout(this.timers.setup)
    clearInterval(this.timers.keepAlive)
    for (const lose of [...this.inFlight]) lose(CONNECTION_DROPPED)
    if (this.state === 'closed') return
    this.state = 'down'
    const reason = wasBound ? `${CONNECTION_DROPPED}${this.lastReason ? ` (${this.lastReason})` : ''}` : this.lastReason || 'the SMSC closed the connection'
    this.lastReason = reason
    const { host, port } = this.options.target
    this.options.log.warn({ host, port, retryInMs: this.reconnectDelay }, `SMPP: ${reason}`)
    this.options.onDown(reason)
    this.timers.reconnect = setTimeout(() => this.connect(), this.reconnectDelay)
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, this.options.reconnectMs.max)
  }

  /** A PDU from the SMSC. Responses reach their request through the package's callbacks; requests are answered here. */
  private receive(session: smpp.Session, pdu: smpp.PDU): void {
    // This runs inside the package's socket reader: an exception would escape to the event loop.
    try {
      if (pdu.isResponse()) return
      switch (pdu.command) {
        case 'enquire_link':
          session.send(pdu.response())
          return
        case 'unbind':
          session.send(pdu.response())
          this.abandon(session, 'the SMSC unbound')
          return
        case 'deliver_sm':
        case 'data_sm': {
          let answered = false
          this.options.onRequest(pdu, (status) => {
            if (answered) return
            answered = true
            // Receipts are answered a stored batch at a time (receipt-queue.ts): corked, a batch's answers leave
            // in one write instead of a system call each (3 % of the server's CPU in docs/benchmarks.md's SMS run).
            corkedWrite(session.socket, () => session.send(pdu.response({ command_status: status })))
          })
          return
        }
        default:
          // generic_nack for an unknown command; commands without a response (alert_notification) throw here.
          session.send(pdu.response({ command_status: STATUS.INVALID_COMMAND_ID }))
      }
    } catch (err) {
      this.options.log.debug({ err, command: pdu.command }, 'SMPP request from the SMSC not answered')
    }
  }

  private call(session: smpp.Session, command: string, fields: Record<string, unknown>): Promise<Response> {
    return new Promise((resolve) => {
      let done = false
      const settle = (response: Response) => {
        if (done) return
        done = true
        clearTimeout(timer)
        this.inFlight.delete(lose)
        resolve(response)
      }
      const lose = (reason: string) => settle({ lost: reason })
      const timer = setTimeout(() => lose(`no ${command}_resp within ${this.options.responseTimeoutMs / 1000} s`), this.options.responseTimeoutMs)
      this.inFlight.add(lose)
      if (!session.send(new (smppPackage().PDU)(command, fields), (pdu) => settle({ pdu }))) lose(CONNECTION_DROPPED)
    })
  }

  private clearTimers(): void {
    clearTimeout(this.timers.setup)
    clearInterval(this.timers.keepAlive)
    clearTimeout(this.timers.reconnect)
  }
}

/** Runs `write` with the socket corked until the next tick: writes made meanwhile, here or by other callers, leave together. */
function corkedWrite(socket: Socket | undefined, write: () => void): void {
  socket?.cork()
  try {
    write()
  } finally {
    if (socket) process.nextTick(() => socket.uncork())
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
}
