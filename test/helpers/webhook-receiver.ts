// A real HTTP receiver on loopback for webhook deliveries: keeps each request's headers and raw body, and
// answers with a status the test sets (500 for a while, then 200 …).
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import qs from 'qs'

export interface ReceivedDelivery {
  headers: http.IncomingHttpHeaders
  body: string
  /** The form body read the way PHP reads it: an array of events. */
  events: Record<string, unknown>[]
}

export interface WebhookReceiver {
  url: string
  received: ReceivedDelivery[]
  /** The status of the next answers. */
  status: number
  /** Requests answered with a status other than 2xx. */
  refused: number
  /** Milliseconds to wait before answering: a slow receiver. */
  delayMs: number
  /** Requests received and not yet answered. */
  pending: number
  close(): Promise<void>
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = { url: '', received: [], status: 200, refused: 0, delayMs: 0, pending: 0, close: async () => {} }
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', async () => {
      receiver.pending++
      await new Promise((resolve) => setTimeout(resolve, receiver.delayMs))
      receiver.pending--
      const body = Buffer.concat(chunks).toString('utf8')
      if (receiver.status >= 200 && receiver.status < 300) {
        receiver.received.push({ headers: request.headers, body, events: Object.values(qs.parse(body, { depth: 5 })) as Record<string, unknown>[] })
      } else {
        receiver.refused++
      }
      response.statusCode = receiver.status
      response.end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  receiver.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
  return receiver
}
