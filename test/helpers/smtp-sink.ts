// A real SMTP server on loopback (smtp-server) that keeps what it receives, parsed by mailparser, and can
// refuse recipients with a given SMTP answer.
import { SMTPServer, type SMTPServerAddress } from 'smtp-server'
import { simpleParser, type ParsedMail } from 'mailparser'
import type { AddressInfo, Socket } from 'node:net'

export interface Received {
  envelopeFrom: string
  envelopeTo: string[]
  mail: ParsedMail
  /** The message as it came over the wire. */
  raw: Buffer
}

export interface SmtpSink {
  url: string
  received: Received[]
  /** Answer for a recipient: undefined accepts it. */
  refuse: (recipient: string) => { code: number; message: string } | undefined
  /** Milliseconds to wait before accepting each message: a slow relay. */
  delayMs: number
  /** While set, each message received is answered only once this settles: a relay that hangs. */
  hold: Promise<unknown> | undefined
  /** Cuts every open connection, without an answer, once this many messages were received in all. */
  dropAfter: number | undefined
  /** With `envelopesOnly`: each message's recipients, the message itself neither kept nor parsed. */
  recipients: string[]
  close(): Promise<void>
}

/** `envelopesOnly`: counts recipients without parsing (a test of 20,000 messages: mailparser would take its CPU). */
export async function startSmtpSink(options: { envelopesOnly?: boolean } = {}): Promise<SmtpSink> {
  const received: Received[] = []
  const sink: SmtpSink = { url: '', received, refuse: () => undefined, delayMs: 0, hold: undefined, dropAfter: undefined, recipients: [], close: async () => {} }
  const sockets = new Set<Socket>()
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      const refusal = sink.refuse(address.address)
      if (!refusal) return callback()
      callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }))
    },
    onData(stream, session, callback) {
      if (sink.dropAfter !== undefined && received.length >= sink.dropAfter) {
        sink.dropAfter = undefined
        for (const socket of sockets) socket.destroy()
        return
      }
      if (options.envelopesOnly) {
        stream.on('end', () => {
          sink.recipients.push(...session.envelope.rcptTo.map((r) => r.address))
          callback()
        })
        return void stream.resume()
      }
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const raw = Buffer.concat(chunks)
        simpleParser(raw).then(
          (mail) => {
            received.push({
              envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              envelopeTo: session.envelope.rcptTo.map((r) => r.address),
              mail,
              raw,
            })
            void Promise.resolve(sink.hold).then(() => setTimeout(() => callback(), sink.delayMs))
          },
          (err: Error) => callback(err),
        )
      })
    },
  })
  // A client killed mid-session (the crash tests SIGKILL workers) resets its connection: smtp-server reports
  // that as an 'error' event, which would end the test process if nobody listened.
  server.on('error', () => {})
  server.server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  sink.url = `smtp://127.0.0.1:${port}`
  sink.close = () => new Promise<void>((resolve) => server.close(() => resolve()))
  return sink
}
