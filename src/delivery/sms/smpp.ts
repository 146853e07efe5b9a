// The SMPP channel (`TIDINGS_SMPP_URL`): submit_sm over one bind_transceiver (smpp-link.ts) with at most
// `window` submits awaiting their response, long texts as UDH-concatenated parts, registered_delivery 1; the
// SMSC's answers become results and its deliver_sm receipts go to the receipt handler (receipt-queue.ts).
import type { Logger } from 'pino'
import type smpp from 'smpp'
import type { DeliveryReceipt, OutboundSms, SmsChannel, SmsSendResult } from './channel.js'
import { Fifo } from './fifo.js'
import { receiptOf } from './receipt.js'
import { ReceiptQueue } from './receipt-queue.js'
import { SmppLink, smppTargetOf, type Response } from './smpp-link.js'
import { textOfMessageField } from './smpp-fields.js'
import { asksToSlowDown, describeStatus, isTemporaryStatus, STATUS } from './smpp-status.js'
import { submitPartsOf, type SubmitPart } from './submit-parts.js'
import type { Gsm7Packing } from './text.js'

export interface SmppChannelOptions {
  /** smpp://system_id:password@host:port, or ssmpp:// for TLS. */
  url: string
  log: Logger
  /** submit_sm sent and not yet answered, at most (default 10). */
  window?: number
  /** Seconds between enquire_link keep-alives (default 30). */
  enquireLinkSeconds?: number
  /** A submit (or bind, or enquire_link) not answered in this time counts as lost (default 10 s). */
  responseTimeoutMs?: number
  gsm7Packing?: Gsm7Packing
  /** Pause before binding again after a failed or lost bind: first, doubled up to max (default 1 s to 30 s). */
  reconnectMs?: { first: number; max: number }
  /** Pause in new submits after ESME_RTHROTTLED or ESME_RMSGQFUL: first, doubled while they go on (default 1 s to 8 s). */
  slowDownMs?: { first: number; max: number }
  /** The clock of receipts' `at` (default Date.now). */
  now?: () => number
}

/** A message on its way: its parts go out one after the other, each once the previous one was accepted. */
interface Job {
  fields: Record<string, unknown>
  parts: SubmitPart[]
  ids: string[]
  resolve(result: SmsSendResult): void
}

/** ESM class bit 2 (SMPP 3.4 §5.2.12): an SMSC delivery receipt. */
const ESM_CLASS_RECEIPT = 0x04
// SMPP 3.4 §5.2.5-6: international numbers in E.164 form; an alphanumeric sender ID.
const INTERNATIONAL = { ton: 1, npi: 1 }
const ALPHANUMERIC = { ton: 5, npi: 0 }

export function smppChannel(options: SmppChannelOptions): SmsChannel {
  return new SmppChannel(options)
}

class SmppChannel implements SmsChannel {
  readonly name = 'smpp'
  private readonly link: SmppLink
  private readonly receipts: ReceiptQueue
  private readonly window: number
  private readonly gsm7Packing: Gsm7Packing
  private readonly slowDownMs: { first: number; max: number }
  private readonly now: () => number
  private readonly waiting = new Fifo<Job>()
  /** Messages whose next part may go: before new messages, so that started messages finish. */
  private readonly continuing = new Fifo<Job>()
  private outstanding = 0
  /**
   * Submits held after ESME_RTHROTTLED or ESME_RMSGQFUL; only the pause's timer ends it. Not a deadline compared
   * with performance.now(): Node's timers count whole milliseconds, so the timer could fire up to 1 ms before
   * such a deadline (0.3 ms seen), pump() then returned with messages waiting and no timer left to wake it, and
   * the sender awaiting them hung for good (smpp-campaign.test.ts, 2 runs in 6).
   */
  private paused = false
  private slowDownDelay: number
  private pauseTimer: NodeJS.Timeout | undefined
  // The concatenation reference of the next long text; starting anywhere makes a restart unlikely to reuse the
  // reference of a text whose parts the handset still holds.
  private reference = Math.floor(Math.random() * 256)

  constructor(private readonly options: SmppChannelOptions) {
    this.window = options.window ?? 10
    this.gsm7Packing = options.gsm7Packing ?? 'unpacked'
    this.slowDownMs = options.slowDownMs ?? { first: 1000, max: 8000 }
    this.slowDownDelay = this.slowDownMs.first
    this.now = options.now ?? Date.now
    this.receipts = new ReceiptQueue(options.log)
    const timeout = options.responseTimeoutMs ?? 10_000
    this.link = new SmppLink({
      target: smppTargetOf(options.url),
      log: options.log,
      enquireLinkMs: (options.enquireLinkSeconds ?? 30) * 1000,
      responseTimeoutMs: timeout,
      reconnectMs: options.reconnectMs ?? { first: 1000, max: 30_000 },
      onRequest: (pdu, respond) => this.deliver(pdu, respond),
      onBound: () => this.pump(),
      onDown: (reason) => this.failQueued(reason),
    })
  }

  async send(batch: readonly OutboundSms[]): Promise<SmsSendResult[]> {
    const results = batch.map((sms) => this.enqueue(sms))
    this.pump()
    return Promise.all(results)
  }

  onReceipt(handler: (receipts: DeliveryReceipt[]) => Promise<void>): void {
    this.receipts.setHandler(handler)
  }

  async close(): Promise<void> {
    clearTimeout(this.pauseTimer)
    await this.link.close()
    this.failQueued(this.link.unavailableReason())
  }

  private enqueue(sms: OutboundSms): Promise<SmsSendResult> {
    const prepared = this.prepare(sms)
    if ('ok' in prepared) return Promise.resolve(prepared)
    // Down (the last bind failed or dropped) or closed: say so now rather than wait for the next attempt.
    if (this.link.state === 'down' || this.link.state === 'closed') return Promise.resolve(retryable(this.link.unavailableReason()))
    return new Promise((resolve) => this.waiting.push({ ...prepared, ids: [], resolve }))
  }

  /** The submit_sm fields and parts of a message, or why it cannot be sent at all. */
  private prepare(sms: OutboundSms): Omit<Job, 'ids' | 'resolve'> | SmsSendResult {
    const to = sms.to.replace(/^\+/, '')
    if (!/^\d{1,20}$/.test(to)) return refused(`the destination ${JSON.stringify(sms.to)} is not an international number`)
    const numericSender = /^\+?\d{1,20}$/.test(sms.from)
    if (!numericSender && !/^[\x20-\x7e]{1,11}$/.test(sms.from)) return refused(`the sender ID ${JSON.stringify(sms.from)} is neither digits nor up to 11 ASCII characters`)
    let parts: SubmitPart[]
    try {
      parts = submitPartsOf(sms.text, { reference: this.reference, gsm7Packing: this.gsm7Packing })
    } catch (err) {
      return refused((err as Error).message)
    }
    if (parts.length > 1) this.reference = (this.reference + 1) & 0xff
    const source = numericSender ? INTERNATIONAL : ALPHANUMERIC
    const fields = {
      source_addr_ton: source.ton,
      source_addr_npi: source.npi,
      source_addr: sms.from.replace(/^\+/, ''),
      dest_addr_ton: INTERNATIONAL.ton,
      dest_addr_npi: INTERNATIONAL.npi,
      destination_addr: to,
      // SMPP 3.4 §5.2.17: a receipt for the final outcome, success or failure.
      registered_delivery: 1,
    }
    return { fields, parts }
  }

  /** Submits parts while the window has room, the bind is up and the SMSC has not asked us to slow down. */
  private pump(): void {
    if (this.link.state !== 'bound' || this.paused) return
    this.link.corked(() => {
      while (this.outstanding < this.window) {
        const job = this.continuing.take() ?? this.waiting.take()
        if (!job) return
        this.submit(job)
      }
    })
  }

  private submit(job: Job): void {
    const part = job.parts[job.ids.length]!
    this.outstanding++
    void this.link
      .request('submit_sm', { ...job.fields, esm_class: part.esmClass, data_coding: part.dataCoding, short_message: part.shortMessage })
      .then((response) => {
        this.outstanding--
        this.settle(job, response)
        this.pump()
      })
  }

  private settle(job: Job, response: Response): void {
    if ('lost' in response) return job.resolve(retryable(response.lost))
    const status = response.pdu.command_status
    if (status === STATUS.OK) {
      this.slowDownDelay = this.slowDownMs.first
      job.ids.push(String(response.pdu.message_id ?? ''))
      if (job.ids.length < job.parts.length) this.continuing.push(job)
      else job.resolve({ ok: true, providerIds: job.ids })
      return
    }
    if (asksToSlowDown(status)) this.slowDown(status)
    if (status === STATUS.INVALID_BIND_STATUS) this.link.reconnect(describeStatus(status))
    // A later part refused leaves the earlier ones delivered alone; the parts after it are not sent.
    job.resolve({ ok: false, retryable: isTemporaryStatus(status), code: status, reason: describeStatus(status) })
  }

  private slowDown(status: number): void {
    if (this.paused) return
    this.paused = true
    this.options.log.warn({ pauseMs: this.slowDownDelay }, `SMPP: ${describeStatus(status)}; pausing submits`)
    this.pauseTimer = setTimeout(() => {
      this.paused = false
      this.pump()
    }, this.slowDownDelay)
    this.slowDownDelay = Math.min(this.slowDownDelay * 2, this.slowDownMs.max)
  }

  private failQueued(reason: string): void {
    for (const job of [...this.continuing.takeAll(), ...this.waiting.takeAll()]) job.resolve(retryable(reason))
  }

  /** A deliver_sm or data_sm: a receipt goes to the handler, answered when stored; anything else is answered at once. */
  private deliver(pdu: smpp.PDU, respond: (status: number) => void): void {
    const receiptedMessageId = typeof pdu.receipted_message_id === 'string' ? pdu.receipted_message_id : undefined
    // Mobile-originated messages (replies, STOP) are not handled yet: accepted so the SMSC does not resend them.
    if ((Number(pdu.esm_class ?? 0) & ESM_CLASS_RECEIPT) === 0 && receiptedMessageId === undefined) return respond(STATUS.OK)
    // SMPP 3.4 §5.3.2.32: a long body comes in message_payload, with an empty short_message.
    const text = textOfMessageField(pdu.short_message, pdu.data_coding) || textOfMessageField(pdu.message_payload, pdu.data_coding)
    const receipt = receiptOf(
      {
        text,
        receiptedMessageId,
        messageState: typeof pdu.message_state === 'number' ? pdu.message_state : undefined,
        networkErrorCode: Buffer.isBuffer(pdu.network_error_code) ? pdu.network_error_code : undefined,
      },
      this.now(),
    )
    if (!receipt) {
      // Refusing it would make the SMSC send it again and again.
      this.options.log.warn({ text, receiptedMessageId }, 'SMPP: a delivery receipt without a message id or a known state, ignored')
      return respond(STATUS.OK)
    }
    this.receipts.push(receipt, (stored) => respond(stored ? STATUS.OK : STATUS.TEMPORARY_APP_ERROR))
  }
}

function retryable(reason: string): SmsSendResult {
  return { ok: false, retryable: true, reason }
}

function refused(reason: string): SmsSendResult {
  return { ok: false, retryable: false, reason }
}
