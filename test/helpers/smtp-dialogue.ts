// A bare SMTP client over a socket, for tests that need what nodemailer will not do: stream a message far
// past the server's SIZE, hold a connection open idle, or read the server's greeting and EHLO lines as sent.
import { connect, type Socket } from 'node:net'
import { once } from 'node:events'

export interface SmtpDialogue {
  /** The next complete answer, all its lines (`250-…\r\n250 …`), or '' once the server closed the connection. */
  answer(): Promise<string>
  /** Sends one command line and reads its answer. */
  command(line: string): Promise<string>
  /** Writes raw bytes, waiting while the socket's buffer is full (so the test itself holds little memory). */
  write(data: Buffer | string): Promise<void>
  closed: Promise<void>
  close(): void
}

export async function smtpDialogue(port: number, host = '127.0.0.1'): Promise<SmtpDialogue> {
  const socket: Socket = connect(port, host)
  await once(socket, 'connect')
  let pending = ''
  let ended = false
  let wake: (() => void) | undefined
  socket.setEncoding('latin1')
  socket.on('data', (text: string) => {
    pending += text
    wake?.()
  })
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  void closed.then(() => {
    ended = true
    wake?.()
  })
  socket.on('error', () => {})

  const answer = async (): Promise<string> => {
    for (;;) {
      // An answer ends with its last line, the one whose code is followed by a space (RFC 5321 4.2.1).
      const last = /^\d{3}(?: [^\r\n]*)?\r\n/m.exec(pending)
      if (last) {
        const end = last.index + last[0].length
        const text = pending.slice(0, end).trimEnd()
        pending = pending.slice(end)
        return text
      }
      if (ended) return ''
      await new Promise<void>((resolve) => (wake = resolve))
    }
  }
  const write = async (data: Buffer | string): Promise<void> => {
    if (ended || socket.write(data)) return
    await Promise.race([once(socket, 'drain'), closed])
  }
  return {
    answer,
    command: async (line) => {
      await write(`${line}\r\n`)
      return answer()
    },
    write,
    closed,
    close: () => socket.destroy(),
  }
}
