// The reference of issue 18's Viber benchmark: a bare node:http keep-alive client sending the Vonage requests a
// Viber campaign sends (built by the adapter's own vonageRequestOf, so the bodies are the same) to the Vonage
// stand-in as fast as `concurrency` requests in flight allow, each answer sending the next; and a bare HTTP
// server answering the stand-in's status callbacks at once (200, nothing checked), as Tidings answers them.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { vonageRequestOf } from '../../src/delivery/viber/vonage-request.js'
import type { OutboundViber } from '../../src/delivery/viber/channel.js'

export interface CallbackSink {
  /** The webhook_url to put in the requests. */
  url: string
  /** Callbacks answered so far. */
  received(): number
  close(): Promise<void>
}

/** An HTTP server that reads each callback and answers 200 `{"result":true}`, as Tidings' route does. */
export async function startCallbackSink(): Promise<CallbackSink> {
  let received = 0
  const server = http.createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      received++
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': 15 })
      response.end('{"result":true}')
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/viber/callbacks/vonage`,
    received: () => received,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * Sends `count` requests, `message(i)` each, `concurrency` in flight over a keep-alive pool of as many sockets
 * (as the Vonage adapter does); every answer must be a 202. Resolves when the last answer has been read.
 */
export async function sendBare(c: { url: string; credentials: string; webhookUrl: string; concurrency: number; count: number; message: (i: number) => OutboundViber }): Promise<void> {
  const target = new URL(c.url)
  const agent = new http.Agent({ keepAlive: true, maxSockets: c.concurrency, maxFreeSockets: c.concurrency })
  const headers = { authorization: `Basic ${Buffer.from(c.credentials).toString('base64')}`, 'content-type': 'application/json', accept: 'application/json' }
  const post = (body: string) =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(target, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } })
      request.on('error', reject)
      request.on('response', (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => (response.statusCode === 202 ? resolve() : reject(new Error(`the stand-in answered ${response.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 300)}`))))
      })
      request.end(body)
    })
  let next = 0
  const worker = async () => {
    while (next < c.count) {
      const request = vonageRequestOf(c.message(next++), c.webhookUrl)
      if (request instanceof Error) throw request
      await post(JSON.stringify(request))
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.min(c.concurrency, c.count) }, worker))
  } finally {
    agent.destroy()
  }
}
