// The inbound SMTP listener of the return path (TIDINGS_BOUNCE_PORT): accepts mail only for our own addresses
// (VERP, the feedback-loop addresses, the mailto: of List-Unsubscribe), reads each as a DSN or ARF report and
// hands it on. Everything else is refused at RCPT TO, so the listener is no open relay and no mailbox for
// strangers. It faces the whole internet: it keeps at most MAX_REPORT_BYTES of a message and MAX_RECIPIENTS
// recipients, serves `maxClients` connections at once and closes silent ones.
import { SMTPServer } from 'smtp-server'
import type { AddressInfo } from 'node:net'
import type { Logger } from 'pino'
import { parseBounceReport, type BounceReport } from './bounce-report.js'

export interface BounceListenerOptions {
  port: number
  host: string
  /** Connections served at once; the next is answered 421 (try again later). */
  maxClients: number
  /** A connection silent this long is closed. */
  socketTimeoutMs: number
  /** Whether a recipient address is one of ours. */
  accepts: (address: string) => Promise<boolean>
  /** Called with each accepted message: its report, if it is one, and the envelope recipients it came for. */
  onMessage: (report: BounceReport | undefined, envelopeTo: string[]) => Promise<void>
  log: Logger
}

export interface BounceListener {
  port: number
  close(): Promise<void>
}

/**
 * Reports are small: a DSN or ARF report with the returned headers is a few KiB, and RFC 3462/5965 reporters
 * return at most the original's headers or a cut copy. 2 MiB (advertised as SIZE) leaves room for a whole
 * returned message; anything longer is read and dropped, then refused with 552.
 */
const MAX_REPORT_BYTES = 2 * 1024 * 1024
/**
 * Recipients of one message. A bounce or complaint comes to one address (its VERP or a feedback address); a
 * relay may batch a few. 100 is the least RFC 5321 (4.5.3.1.8) lets a server take; the next distinct one is
 * answered 452 (4.5.3.1.10: the client sends the rest in another transaction), so one connection cannot grow
 * the envelope without bound.
 */
const MAX_RECIPIENTS = 100
/** On shutdown, the time a connection in the middle of a report gets to finish before it is cut. */
const CLOSE_TIMEOUT_MS = 10_000

export async function startBounceListener(options: BounceListenerOptions): Promise<BounceListener> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    size: MAX_REPORT_BYTES,
    maxClients: options.maxClients,
    maxRecipients: MAX_RECIPIENTS,
    socketTimeout: options.socketTimeoutMs,
    closeTimeout: CLOSE_TIMEOUT_MS,
    onRcptTo(address, _session, callback) {
      options.accepts(address.address).then(
        (ok) => callback(ok ? undefined : Object.assign(new Error('5.1.1 No such user here'), { responseCode: 550 })),
        (err: Error) => callback(err),
      )
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      let bytes = 0
      stream.on('data', (chunk: Buffer) => {
        // Past the limit the message is refused: what was kept is let go, and the rest is read (the client
        // waits for an answer after its final dot) but not kept.
        bytes += chunk.length
        if (bytes <= MAX_REPORT_BYTES) chunks.push(chunk)
        else chunks.length = 0
      })
      stream.on('end', () => {
        if (bytes > MAX_REPORT_BYTES) return callback(Object.assign(new Error('5.3.4 Message too big for a report'), { responseCode: 552 }))
        const envelopeTo = session.envelope.rcptTo.map((r) => r.address)
        parseBounceReport(Buffer.concat(chunks))
          .then((report) => options.onMessage(report, envelopeTo))
          .then(
            () => callback(),
            (err: unknown) => {
              options.log.error({ err }, 'a message to the return path could not be handled')
              // A temporary refusal: the sending server tries again later, so the report is not lost.
              callback(Object.assign(new Error('4.3.0 Try again later'), { responseCode: 451 }))
            },
          )
      })
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => resolve())
  })
  return {
    port: (server.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
