// Types for the parts of the `smpp` package (0.5.1, which ships none) that Tidings and its tests use:
// sessions (client and server side), PDUs, the status codes and the GSM 03.38 coder (lib/smpp.js, pdu.js, defs.js).
declare module 'smpp' {
  import type { EventEmitter } from 'node:events'
  import type { Server as NetServer, Socket } from 'node:net'

  namespace smpp {
    /** A decoded PDU: the header, then the command's parameters and TLVs by name (defs.js). */
    interface PDU {
      command: string
      command_id: number
      command_length: number
      command_status: number
      sequence_number: number
      [field: string]: unknown
      isResponse(): boolean
      /** The `<command>_resp` (or generic_nack) with this PDU's sequence number; throws for a command without one. */
      response(options?: Record<string, unknown>): PDU
      toBuffer(): Buffer
      fromBuffer(buffer: Buffer): void
    }

    interface PDUConstructor {
      new (command: string, options?: Record<string, unknown>): PDU
      new (buffer: Buffer): PDU
      readonly prototype: PDU
      maxLength: number
    }

    type ResponseCallback = (pdu: PDU) => void

    /** One SMPP connection; emits `connect`/`secureConnect`, `pdu`, each command by name, `error` and `close`. */
    class Session extends EventEmitter {
      socket: Socket
      /** Writes a PDU (giving it the next sequence number); false when the socket is no longer writable. */
      send(pdu: PDU, onResponse?: ResponseCallback, onSent?: ResponseCallback): boolean
      close(callback?: () => void): void
      destroy(callback?: () => void): void
      pause(): void
      resume(): void
      bind_transceiver(options: Record<string, unknown>, onResponse?: ResponseCallback): boolean
      submit_sm(options: Record<string, unknown>, onResponse?: ResponseCallback): boolean
      deliver_sm(options: Record<string, unknown>, onResponse?: ResponseCallback): boolean
      enquire_link(options: Record<string, unknown>, onResponse?: ResponseCallback): boolean
      unbind(options: Record<string, unknown>, onResponse?: ResponseCallback): boolean
    }

    class Server extends NetServer {
      sessions: Session[]
    }

    interface ConnectOptions {
      host: string
      port: number
      /** TLS (tls.connect) instead of TCP; the other options go to tls.connect too. */
      tls?: boolean
      servername?: string
      rejectUnauthorized?: boolean
      ca?: string | Buffer
    }

    interface ServerOptions {
      /** With `key` and `cert`, a TLS server. */
      key?: string | Buffer
      cert?: string | Buffer
    }

    const PDU: PDUConstructor
    function connect(options: ConnectOptions, listener?: () => void): Session
    function createServer(options: ServerOptions, listener?: (session: Session) => void): Server
    /** Command status names (ESME_ROK, ESME_RTHROTTLED, …) to their values. */
    const errors: Record<string, number>
    /** GSM 03.38: `shift` 0 is the default alphabet; one septet per octet (unpacked). */
    const gsmCoder: {
      encode(text: string, shift?: number): Buffer
      decode(septets: Buffer, shift?: number): string
    }
  }

  export = smpp
}
