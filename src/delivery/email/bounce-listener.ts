// The inbound SMTP listener of the return path (TIDINGS_BOUNCE_PORT): accepts mail only for our VERP
// addresses, reads each as a DSN or ARF report and hands it on. Everything else is refused at RCPT TO, so the
// listener is no open relay and no mailbox for strangers.
import { SMTPServer } from 'smtp-server'
import type { AddressInfo } from 'node:net'
import type { Logger } from 'pino'
import { parseBounceReport, type BounceReport } from './bounce-report.js'

export interface BounceListenerOptions {
  port: number
  host: string
  /** Whether a recipient address is one of our VERP addresses. */
  accepts: (address: string) => Promise<boolean>
  /** Called with each report and the envelope recipients it came for. */
  onReport: (report: BounceReport, envelopeTo: string[]) => Promise<void>
  log: Logger
}

export interface BounceListener {
  port: number
  close(): Promise<void>
}

/** Reports are small; a returned message with big attachments is cut off, not buffered without bound. */
const MAX_REPORT_BYTES = 2 * 1024 * 1024

export async function startBounceListener(options: BounceListenerOptions): Promise<BounceListener> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    size: MAX_REPORT_BYTES,
    onRcptTo(address, _session, callback) {
      options.accepts(address.address).then(
        (ok) => callback(ok ? undefined : Object.assign(new Error('5.1.1 No such user here'), { responseCode: 550 })),
        (err: Error) => callback(err),
      )
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          return callback(Object.assign(new Error('5.3.4 Report too big'), { responseCode: 552 }))
        }
        const envelopeTo = session.envelope.rcptTo.map((r) => r.address)
        parseBounceReport(Buffer.concat(chunks))
          .then((report) => (report ? options.onReport(report, envelopeTo) : options.log.info({ envelopeTo }, 'mail to a bounce address that is no report')))
          .then(
            () => callback(),
            (err: unknown) => {
              options.log.error({ err }, 'a bounce report could not be recorded')
              // A temporary refusal: the reporting server tries again later, so the report is not lost.
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
