// SMTP replies as they come off a connection (RFC 5321 4.2): lines gathered until the one whose code is not
// followed by '-', and the errors the SMTP client reports, each with the reply that caused it if there was one.

export interface Reply {
  /** The three-digit code; 0 when the server sent something else. */
  code: number
  /** The text of each line after its code. */
  lines: string[]
  /** The reply as sent, lines joined with LF: what a failed message records (`550 5.1.1 No such user`). */
  text: string
}

/**
 * What went wrong, as nodemailer names it: ECONNECTION (refused, dropped), ETIMEDOUT, ETLS (no STARTTLS, failed
 * handshake), EAUTH (credentials refused), EPROTOCOL (not an SMTP server), EENVELOPE (sender or recipient
 * refused, or not writable in a command), EMESSAGE (the message refused).
 */
export type SmtpErrorCode = 'ECONNECTION' | 'ETIMEDOUT' | 'ETLS' | 'EAUTH' | 'EPROTOCOL' | 'EENVELOPE' | 'EMESSAGE'

export class SmtpError extends Error {
  constructor(
    message: string,
    readonly code: SmtpErrorCode,
    readonly reply?: Reply,
    options?: { cause?: unknown },
  ) {
    super(reply ? `${message}: ${reply.text}` : message, options)
  }
}

/** A reply's lines this long in all is not SMTP: the connection is dropped rather than the memory spent. */
const MAX_REPLY_BYTES = 64 * 1024

/** Splits what a connection receives into replies; `push` the data as latin1 text (one character per byte). */
export class ReplyReader {
  private partial = ''
  private lines: string[] = []
  private size = 0

  constructor(private readonly onReply: (reply: Reply) => void) {}

  push(chunk: string): void {
    const text = this.partial === '' ? chunk : this.partial + chunk
    let start = 0
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      const line = text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end)
      start = end + 1
      this.lines.push(line)
      this.size += line.length
      // The last line of a reply: its code followed by a space or nothing (`250 OK`, `250`).
      if (line.charCodeAt(3) !== 0x2d) {
        const lines = this.lines
        this.lines = []
        this.size = 0
        this.onReply(replyOf(lines))
      }
    }
    this.partial = text.slice(start)
    if (this.size + this.partial.length > MAX_REPLY_BYTES) throw new SmtpError(`the server sent a reply of more than ${MAX_REPLY_BYTES} bytes`, 'EPROTOCOL')
  }
}

function replyOf(lines: string[]): Reply {
  const code = /^[2-5]\d\d$/.test(lines[0]!.slice(0, 3)) ? Number(lines[0]!.slice(0, 3)) : 0
  const text = decodeUtf8(lines.join('\n'))
  return { code, lines: lines.map((line) => decodeUtf8(line.slice(4))), text }
}

/** Reply text has no charset (RFC 5321 4.2.1); most servers write UTF-8, what is not valid UTF-8 stays as bytes. */
function decodeUtf8(latin1: string): string {
  if (!/[\x80-\xff]/.test(latin1)) return latin1
  const utf8 = Buffer.from(latin1, 'latin1').toString('utf8')
  return utf8.includes('\uFFFD') ? latin1 : utf8
}
