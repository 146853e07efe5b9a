// A real SMSC on loopback (the smpp package's server) for tests and benchmarks. It checks bind credentials,
// answers submit_sm with increasing hexadecimal ids, records each submit with its bytes, UDH and decoded text,
// and sends a delivery receipt for each accepted part, after the submit_sm_resp or before it. Its behaviour can
// be changed at any time: throttle, reject destinations, answer slowly, drop connections, stop and start again.
// A receipt the ESME refuses (or does not answer because the connection dropped) is sent again, as SMSCs do;
// receipts wait for the next bind when no ESME is bound.
import type { AddressInfo } from 'node:net'
import smpp from 'smpp'

export interface SmscSubmit {
  /** The id given in submit_sm_resp; '' when refused. */
  messageId: string
  /** The command_status answered. */
  status: number
  source: string
  sourceTon: number
  sourceNpi: number
  destination: string
  destinationTon: number
  dataCoding: number
  esmClass: number
  registeredDelivery: number
  /** short_message as it came over the wire, UDH included. */
  shortMessage: Buffer
  /** The concatenation header, for a part of a long text. */
  udh?: { reference: number; total: number; seq: number }
  /** The part's text, decoded (GSM-7 by the package's coder, packed septets unpacked first; UCS-2). */
  text: string
}

export interface SmscMessage {
  destination: string
  source: string
  text: string
  parts: SmscSubmit[]
}

export interface SmscOptions {
  systemId?: string
  password?: string
  /** How data_coding 0 texts are read (default unpacked). */
  gsm7Packing?: 'unpacked' | 'packed'
  /** Keep every submit (default true); a benchmark only counts. */
  record?: boolean
  /** A fixed port to listen on (default 0: a free one). */
  port?: number
}

export interface Smsc {
  port: number
  /** smpp://systemId:password@127.0.0.1:port */
  url: string
  submits: SmscSubmit[]
  /** Every submit_sm received, counted even when not recorded. */
  submitCount: number
  /** The password binds must give (may be changed: the next bind is checked against it). */
  password: string
  binds: { systemId: string; ok: boolean; at: number }[]
  /** deliver_sm_resp statuses, by receipt message id, in the order they came (when recording). */
  receiptAnswers: { messageId: string; status: number }[]
  /** Receipts the ESME acknowledged with ESME_ROK, counted even when not recorded. */
  receiptsAcknowledged: number
  /** enquire_link received. */
  enquireLinks: number
  /** Answer enquire_link (default true); false plays a connection that silently died. */
  answerEnquireLink: boolean
  /** The most submit_sm received and not yet answered at one time. */
  maxOutstanding: number
  /** `after` the submit_sm_resp (default), `before` it (the race), or `none`. */
  receipts: 'after' | 'before' | 'none'
  /** stat of the receipt of a part to this destination (default DELIVRD). */
  receiptStat: (destination: string) => string
  /** Also send receipted_message_id and message_state TLVs. */
  receiptTlvs: boolean
  /** Milliseconds before a refused receipt is sent again (default 100). */
  redeliverMs: number
  /** Answers the next N submits with ESME_RTHROTTLED (counts down). */
  throttleNext: number
  /** A refusal status for a destination; undefined accepts it. */
  reject: (destination: string) => number | undefined
  /** Milliseconds before each submit_sm_resp. */
  respondDelayMs: number
  /** Once this many submits were received, the next one closes every connection unanswered (once). */
  dropAfter: number | undefined
  /** Accepted messages, their parts joined. */
  messages(): SmscMessage[]
  /** Sends a deliver_sm of these fields to a bound ESME; resolves with the deliver_sm_resp status. */
  deliver(fields: Record<string, unknown>): Promise<number>
  /** Closes every connection at once, without an unbind. */
  disconnect(): void
  /** Stops listening and closes every connection; start() listens again on the same port. */
  stop(): Promise<void>
  start(): Promise<void>
  close(): Promise<void>
}

const MESSAGE_STATES: Record<string, number> = { ENROUTE: 1, DELIVRD: 2, EXPIRED: 3, DELETED: 4, UNDELIV: 5, ACCEPTD: 6, UNKNOWN: 7, REJECTD: 8 }

interface Receipt {
  messageId: string
  destination: string
  source: string
  stat: string
  text: string
}

export async function startSmsc(options: SmscOptions = {}): Promise<Smsc> {
  const systemId = options.systemId ?? 'tidings'
  const password = options.password ?? 'secret'
  const record = options.record ?? true
  const packed = options.gsm7Packing === 'packed'
  const sessions = new Set<smpp.Session>()
  const bound = new Set<smpp.Session>()
  const waitingReceipts: Receipt[] = []
  const timers = new Set<NodeJS.Timeout>()
  let nextId = 0x10000
  let outstanding = 0

  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer)
      run()
    }, ms)
    timers.add(timer)
  }

  const smsc: Smsc = {
    port: 0,
    url: '',
    submits: [],
    submitCount: 0,
    password,
    binds: [],
    receiptAnswers: [],
    receiptsAcknowledged: 0,
    maxOutstanding: 0,
    enquireLinks: 0,
    answerEnquireLink: true,
    receipts: 'after',
    receiptStat: () => 'DELIVRD',
    receiptTlvs: false,
    redeliverMs: 100,
    throttleNext: 0,
    reject: () => undefined,
    respondDelayMs: 0,
    dropAfter: undefined,
    messages: () => joinParts(smsc.submits.filter((s) => s.status === 0)),
    deliver: (fields) =>
      new Promise((resolve, reject) => {
        const session = [...bound][0]
        if (!session) return reject(new Error('no ESME is bound'))
        session.deliver_sm(fields, (resp) => resolve(resp.command_status))
      }),
    disconnect: () => {
      for (const session of sessions) session.destroy()
    },
    stop: async () => {
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const session of sessions) session.destroy()
      await closed
    },
    start: () => listen(smsc.port),
    close: () => smsc.stop(),
  }

  const inFlightReceipts = new Map<smpp.Session, Set<Receipt>>()
  const sendReceipt = (receipt: Receipt) => {
    const session = [...bound][0]
    if (!session) return void waitingReceipts.push(receipt)
    const fields: Record<string, unknown> = {
      source_addr: receipt.destination,
      destination_addr: receipt.source,
      esm_class: 0x04,
      data_coding: 0,
      short_message: Buffer.from(receiptText(receipt), 'latin1'),
    }
    if (smsc.receiptTlvs) Object.assign(fields, { receipted_message_id: receipt.messageId, message_state: MESSAGE_STATES[receipt.stat] ?? 7 })
    const inFlight = inFlightReceipts.get(session)!
    inFlight.add(receipt)
    session.deliver_sm(fields, (resp) => {
      inFlight.delete(receipt)
      if (record) smsc.receiptAnswers.push({ messageId: receipt.messageId, status: resp.command_status })
      if (resp.command_status === 0) smsc.receiptsAcknowledged++
      else later(smsc.redeliverMs, () => sendReceipt(receipt))
    })
  }
  const onSubmit = (session: smpp.Session, pdu: smpp.PDU, body: Buffer | undefined) => {
    smsc.submitCount++
    if (smsc.dropAfter !== undefined && smsc.submitCount > smsc.dropAfter) {
      smsc.dropAfter = undefined
      for (const s of sessions) s.destroy()
      return
    }
    if (!bound.has(session)) return void session.send(pdu.response({ command_status: smpp.errors.ESME_RINVBNDSTS }))
    const destination = String(pdu.destination_addr)
    let status = smsc.reject(destination) ?? 0
    if (smsc.throttleNext > 0) {
      smsc.throttleNext--
      status = smpp.errors.ESME_RTHROTTLED!
    }
    const messageId = status === 0 ? (nextId++).toString(16).toUpperCase() : ''
    const submit = record ? describeSubmit(pdu, body, { messageId, status, packed }) : undefined
    if (submit) smsc.submits.push(submit)
    const receipt: Receipt | undefined =
      status === 0 && smsc.receipts !== 'none' && (Number(pdu.registered_delivery) & 1) === 1
        ? { messageId, destination, source: String(pdu.source_addr), stat: smsc.receiptStat(destination), text: submit?.text ?? '' }
        : undefined
    outstanding++
    smsc.maxOutstanding = Math.max(smsc.maxOutstanding, outstanding)
    const respond = () => {
      outstanding--
      if (receipt && smsc.receipts === 'before') sendReceipt(receipt)
      session.send(pdu.response(status === 0 ? { message_id: messageId } : { command_status: status }))
      if (receipt && smsc.receipts === 'after') sendReceipt(receipt)
    }
    if (smsc.respondDelayMs > 0) later(smsc.respondDelayMs, respond)
    else respond()
  }

  const onSession = (session: smpp.Session) => {
    sessions.add(session)
    inFlightReceipts.set(session, new Set())
    const lastRead = record ? captureReads(session) : () => undefined
    session.on('error', () => session.destroy())
    session.on('close', () => {
      sessions.delete(session)
      bound.delete(session)
      // Receipts sent and never answered go out again at the next bind.
      waitingReceipts.push(...inFlightReceipts.get(session)!)
      inFlightReceipts.delete(session)
    })
    session.on('pdu', (pdu: smpp.PDU) => {
      switch (pdu.command) {
        case 'bind_transceiver': {
          const ok = pdu.system_id === systemId && pdu.password === smsc.password
          smsc.binds.push({ systemId: String(pdu.system_id), ok, at: Date.now() })
          if (!ok) {
            session.send(pdu.response({ command_status: smpp.errors.ESME_RBINDFAIL }))
            return session.close()
          }
          session.send(pdu.response({ system_id: 'test-smsc' }))
          bound.add(session)
          for (const receipt of waitingReceipts.splice(0)) sendReceipt(receipt)
          return
        }
        case 'submit_sm':
          return onSubmit(session, pdu, lastRead())
        case 'enquire_link':
          smsc.enquireLinks++
          if (smsc.answerEnquireLink) session.send(pdu.response())
          return
        case 'unbind':
          session.send(pdu.response())
          return session.close()
      }
    })
  }

  const server = smpp.createServer({}, onSession)
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject)
        smsc.port = (server.address() as AddressInfo).port
        smsc.url = `smpp://${encodeURIComponent(systemId)}:${encodeURIComponent(password)}@127.0.0.1:${smsc.port}`
        resolve()
      })
    })
  await listen(options.port ?? 0)
  return smsc
}

/** `id:… sub:001 dlvrd:… submit date:… done date:… stat:… err:… text:…` (SMPP 3.4 Appendix B). */
function receiptText(receipt: Receipt): string {
  const date = new Date().toISOString().replace(/\D/g, '').slice(2, 12)
  const delivered = receipt.stat === 'DELIVRD'
  const text = receipt.text.slice(0, 20).replace(/[^\x20-\x7e]/g, '?')
  return `id:${receipt.messageId} sub:001 dlvrd:${delivered ? '001' : '000'} submit date:${date} done date:${date} stat:${receipt.stat} err:${delivered ? '000' : '001'} text:${text}`
}

/**
 * The body of each PDU as the session reads it: the package reads the 4-octet length, then the rest, from the
 * socket just before it emits the PDU, and decodes short_message by data_coding (which loses packed septets).
 */
function captureReads(session: smpp.Session): () => Buffer | undefined {
  const socket = session.socket
  const read = socket.read.bind(socket)
  let last: Buffer | undefined
  socket.read = (size?: number) => {
    const chunk = read(size) as Buffer | null
    if (chunk) last = chunk
    return chunk
  }
  return () => last
}

/** The submit's fields, with short_message as the octets sent (parsed again from the body, without decoding). */
function describeSubmit(pdu: smpp.PDU, body: Buffer | undefined, answer: { messageId: string; status: number; packed: boolean }): SmscSubmit {
  const shortMessage = body ? undecodedShortMessage(pdu.command_length, body) : Buffer.alloc(0)
  const esmClass = Number(pdu.esm_class)
  const dataCoding = Number(pdu.data_coding)
  const hasUdh = (esmClass & 0x40) !== 0 && shortMessage.length > 0
  const udhOctets = hasUdh ? shortMessage[0]! + 1 : 0
  const userData = shortMessage.subarray(udhOctets)
  return {
    messageId: answer.messageId,
    status: answer.status,
    source: String(pdu.source_addr),
    sourceTon: Number(pdu.source_addr_ton),
    sourceNpi: Number(pdu.source_addr_npi),
    destination: String(pdu.destination_addr),
    destinationTon: Number(pdu.dest_addr_ton),
    dataCoding,
    esmClass,
    registeredDelivery: Number(pdu.registered_delivery),
    shortMessage,
    ...(hasUdh ? { udh: concatenationOf(shortMessage.subarray(1, udhOctets)) } : {}),
    text: decodeText(userData, dataCoding, answer.packed ? (7 - ((udhOctets * 8) % 7)) % 7 : undefined),
  }
}

function undecodedShortMessage(commandLength: number, body: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(commandLength)
  const raw = Object.create(smpp.PDU.prototype) as smpp.PDU
  Object.assign(raw, { _filter: () => {} })
  raw.fromBuffer(Buffer.concat([length, body]))
  return Buffer.isBuffer(raw.short_message) ? raw.short_message : Buffer.alloc(0)
}

/** IEI 0x00 (8-bit reference) or 0x08 (16-bit reference) of a UDH's information elements. */
function concatenationOf(elements: Buffer): { reference: number; total: number; seq: number } | undefined {
  for (let i = 0; i + 1 < elements.length; i += 2 + elements[i + 1]!) {
    const iei = elements[i]
    if (iei === 0x00) return { reference: elements[i + 2]!, total: elements[i + 3]!, seq: elements[i + 4]! }
    if (iei === 0x08) return { reference: elements.readUInt16BE(i + 2), total: elements[i + 4]!, seq: elements[i + 5]! }
  }
  return undefined
}

/** `fillBits` set: packed septets after that many fill bits; otherwise one septet per octet. */
function decodeText(userData: Buffer, dataCoding: number, fillBits: number | undefined): string {
  if (dataCoding === 0x08) return Buffer.from(userData).swap16().toString('utf16le')
  return smpp.gsmCoder.decode(fillBits === undefined ? userData : unpackSeptets(userData, fillBits))
}

/** TS 23.038 §6.1.2.1.1, and a CR in 7 spare bits at the end is padding (§6.1.2.3.1). */
function unpackSeptets(octets: Buffer, fillBits = 0): Buffer {
  const septets: number[] = []
  for (let position = fillBits; position + 7 <= octets.length * 8; position += 7) {
    const octet = position >> 3
    const shift = position & 7
    const value = ((octets[octet]! >> shift) | ((octets[octet + 1] ?? 0) << (8 - shift))) & 0x7f
    septets.push(value)
  }
  // A CR that ends the septets on an octet boundary filled 7 spare bits (or doubles a wanted CR).
  if ((fillBits + septets.length * 7) % 8 === 0 && septets.at(-1) === 0x0d) septets.pop()
  return Buffer.from(septets)
}

function joinParts(submits: SmscSubmit[]): SmscMessage[] {
  const messages: SmscMessage[] = []
  const open = new Map<string, SmscMessage>()
  for (const submit of submits) {
    if (!submit.udh) {
      messages.push({ destination: submit.destination, source: submit.source, text: submit.text, parts: [submit] })
      continue
    }
    const key = `${submit.destination}/${submit.udh.reference}/${submit.udh.total}`
    let message = open.get(key)
    if (!message) {
      message = { destination: submit.destination, source: submit.source, text: '', parts: [] }
      open.set(key, message)
      messages.push(message)
    }
    message.parts.push(submit)
    message.parts.sort((a, b) => a.udh!.seq - b.udh!.seq)
    message.text = message.parts.map((p) => p.text).join('')
    if (message.parts.length === submit.udh.total) open.delete(key)
  }
  return messages
}
