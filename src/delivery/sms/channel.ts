// What every SMS channel offers (SMPP, capture): a failed send is a value, not an exception, and delivery
// receipts come back through one handler, acknowledged only once it has stored them.

export interface OutboundSms {
  /** Sender ID: up to 11 alphanumeric characters, or digits. */
  from: string
  /** E.164 digits without `+`. */
  to: string
  text: string
}

export type SmsSendResult =
  | { ok: true; /** One SMSC message id per part, in order. */ providerIds: string[]; captured?: boolean }
  | { ok: false; retryable: boolean; /** SMPP command_status */ code?: number; reason: string }

export interface DeliveryReceipt {
  /** The SMSC's message id of the part, as submit_sm_resp gave it. */
  providerId: string
  state: 'delivered' | 'undeliverable' | 'expired' | 'rejected' | 'deleted' | 'unknown' | 'accepted' | 'enroute'
  /** No other receipt follows for this part (accepted and enroute are intermediate). */
  final: boolean
  /** The receipt's `err:` code or the network error. */
  error?: string
  /** When the receipt arrived (ms since the epoch). */
  at: number
}

export interface SmsChannel {
  /** `smpp` or `capture` */
  readonly name: string
  send(batch: readonly OutboundSms[]): Promise<SmsSendResult[]>
  /**
   * Receipts are acknowledged (deliver_sm_resp) only after the handler's promise resolves, so a crash before they
   * are stored makes the SMSC send them again. A handler rejection → deliver_sm_resp with an error status
   * (ESME_RX_T_APPN) so the SMSC retries.
   */
  onReceipt(handler: (receipts: DeliveryReceipt[]) => Promise<void>): void
  close(): Promise<void>
}
