// Answers requests Node's HTTP parser refuses before Fastify sees them (a request line or headers over
// 16 KB, a malformed request, a timeout) with the SendPulse error body instead of Fastify's own shape.
import type { Socket } from 'node:net'
import { STATUS_CODES } from 'node:http'

function statusOf(err: NodeJS.ErrnoException): number {
  if (err.code === 'HPE_HEADER_OVERFLOW') return 431
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408
  return 400
}

/** Fastify's `clientErrorHandler`: one error body, then the connection is closed. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const status = statusOf(err)
  const body = JSON.stringify({ error_code: status, message: STATUS_CODES[status] })
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy()
}
