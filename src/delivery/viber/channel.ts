// What every Viber channel offers (the Vonage Messages API, capture): one send per recipient with our message id
// as the provider's reference, a failed send as a value (never an exception), and reports that name our message.

export interface OutboundViber {
  /** Our message id: sent as the provider's client reference and echoed in every report. */
  messageId: number
  /** E.164 digits without `+`. */
  to: string
  /** The sender name (the Viber Service Message ID the provider registered). */
  from: string
  /** API.md 4.10.1 message_type 2 (`promotion`) or 3 (`transaction`). */
  category: 'promotion' | 'transaction'
  text: string | null
  imageUrl: string | null
  button: { text: string; url: string } | null
  /** Seconds the provider keeps trying before it gives up (message_live_time, 60–86400). */
  ttlSeconds: number
}

export type ViberSendResult =
  | { ok: true; providerId: string; captured?: boolean }
  | { ok: false; retryable: boolean; reason: string; /** Milliseconds the provider asked us to wait (Retry-After). */ retryAfterMs?: number }

export const VIBER_REPORT_STATES = ['submitted', 'delivered', 'read', 'rejected', 'undeliverable'] as const
export type ViberReportState = (typeof VIBER_REPORT_STATES)[number]

export interface ViberReport {
  messageId: number
  /** The provider's id of the message (Vonage's message_uuid). */
  providerId: string
  /** `submitted` is intermediate; `rejected` and `undeliverable` are final failures (TTL expiry included). */
  state: ViberReportState
  /** When the provider says it happened (ms since the epoch). */
  at: number
  /** The provider's reason for a failure. */
  error?: string
}

export interface ViberChannel {
  /** `vonage` or `capture` */
  readonly name: string
  send(batch: readonly OutboundViber[]): Promise<ViberSendResult[]>
  /**
   * Simulated reports (capture only): a real provider's reports come over HTTP callbacks (vonage-callback.ts).
   * A handler rejection makes the report come again later, as a provider's would after a 5xx answer.
   */
  onReport(handler: (reports: ViberReport[]) => Promise<void>): void
  close(): Promise<void>
}
