// PLACEHOLDER until the vprovider branch is merged (helper writes the real one).
export interface OutboundViber {
  messageId: number
  to: string
  from: string
  category: 'promotion' | 'transaction'
  text: string | null
  imageUrl: string | null
  button: { text: string; url: string } | null
  ttlSeconds: number
}
export type ViberSendResult = { ok: true; providerId: string; captured?: boolean } | { ok: false; retryable: boolean; reason: string; retryAfterMs?: number }
export interface ViberReport {
  messageId: number
  providerId: string
  state: 'submitted' | 'delivered' | 'read' | 'rejected' | 'undeliverable'
  at: number
  error?: string
}
export interface ViberChannel {
  readonly name: string
  send(batch: readonly OutboundViber[]): Promise<ViberSendResult[]>
  onReport(handler: (reports: ViberReport[]) => Promise<void>): void
  close(): Promise<void>
}
