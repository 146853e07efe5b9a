// An SMTP sink in Node (smtp-server) for the sending benchmark: accepts every message, counts messages, bytes
// and distinct recipients, and throws the data away as it streams in. No logging, no reverse DNS lookup, no
// STARTTLS or AUTH offered (a relay on loopback; postfix's smtp-sink offers neither). It runs in the
// benchmark's own process.
import { SMTPServer } from 'smtp-server'
import type { AddressInfo } from 'node:net'

export interface SinkMessage {
  envelopeFrom: string
  envelopeTo: string[]
  /** The message as it came over the wire (without the terminating dot). */
  raw: Buffer
}

export interface NodeSink {
  port: number
  /** Messages received so far. */
  count(): number
  /** Bytes of message data received so far. */
  bytes(): number
  /** Distinct envelope recipients so far (only when `distinctRecipients` was asked for). */
  distinctRecipients(): number
  /** The last `keep` messages received, oldest first. */
  kept(): SinkMessage[]
  stop(): Promise<void>
}

export interface NodeSinkOptions {
  /** Keep the raw text of the last N messages (default 0: nothing is kept). */
  keep?: number
  /** Count distinct envelope recipients, to tell duplicates from losses (holds every address in a Set). */
  distinctRecipients?: boolean
}

/** Starts the sink on 127.0.0.1:port (0 or nothing: a free port). */
export async function startNodeSink(port = 0, options: NodeSinkOptions = {}): Promise<NodeSink> {
  const keep = options.keep ?? 0
  const recipients = options.distinctRecipients ? new Set<string>() : undefined
  const kept: SinkMessage[] = []
  let messages = 0
  let bytes = 0
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    disableReverseLookup: true,
    // Connections a client leaves open do not hold up stop() for the default 30 s.
    closeTimeout: 1000,
    onData(stream, session, callback) {
      const chunks: Buffer[] | undefined = keep > 0 ? [] : undefined
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length
        chunks?.push(chunk)
      })
      stream.once('end', () => {
        messages++
        if (recipients) for (const r of session.envelope.rcptTo) recipients.add(r.address)
        if (chunks) {
          kept.push({
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks),
          })
          if (kept.length > keep) kept.shift()
        }
        callback()
      })
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  // A connection dropped by a client is not the sink's failure; without a listener it would be thrown.
  server.on('error', () => {})
  const address = server.server.address() as AddressInfo
  return {
    port: address.port,
    count: () => messages,
    bytes: () => bytes,
    distinctRecipients: () => recipients?.size ?? 0,
    kept: () => [...kept],
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
