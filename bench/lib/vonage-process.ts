// The Vonage stand-in (test/helpers/vonage.ts) in a process of its own, for benchmarks: it accepts every valid
// message and sends the statuses of BENCH_VONAGE_OUTCOME (comma-separated, default `delivered`; `none`: no
// callbacks), records nothing but times every callback's round trip, and prints
// `{"port":N,"url":…,"credentials":…,"signatureSecret":…}` on its first line of output. BENCH_VONAGE_KEY,
// BENCH_VONAGE_SECRET, BENCH_VONAGE_SIGNATURE_SECRET set the credentials; BENCH_VONAGE_DELAY_MS delays each
// answer. Forked with IPC (bench/lib/vonage-child.ts), it answers `{ type: 'counts' }`, `{ type: 'callbackTimes' }`
// and `{ type: 'reset' }` (forget the 202 window and the callback times), each with a message of the same type.
// Run: node --import tsx bench/lib/vonage-process.ts [port]
import { startVonage, type VonageStatus } from '../../test/helpers/vonage.js'

const outcome = process.env.BENCH_VONAGE_OUTCOME ?? 'delivered'
const vonage = await startVonage({
  record: false,
  timeCallbacks: true,
  port: Number(process.argv[2] ?? 0),
  ...(process.env.BENCH_VONAGE_KEY ? { apiKey: process.env.BENCH_VONAGE_KEY } : {}),
  ...(process.env.BENCH_VONAGE_SECRET ? { apiSecret: process.env.BENCH_VONAGE_SECRET } : {}),
  ...(process.env.BENCH_VONAGE_SIGNATURE_SECRET ? { signatureSecret: process.env.BENCH_VONAGE_SIGNATURE_SECRET } : {}),
})
vonage.defaultOutcome = outcome === 'none' ? [] : (outcome.split(',') as VonageStatus[])
vonage.respondDelayMs = Number(process.env.BENCH_VONAGE_DELAY_MS ?? 0)

const stop = () => void vonage.close().then(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
process.on('disconnect', stop)
process.on('message', (message: { type?: string }) => {
  if (message.type === 'counts') {
    process.send!({
      type: 'counts',
      requests: vonage.requestCount,
      accepted: vonage.accepted,
      maxInFlight: vonage.maxInFlight,
      callbacksAcknowledged: vonage.callbacksAcknowledged,
      callbackAttemptsRefused: vonage.callbackAttemptsRefused,
      firstAcceptedAt: vonage.firstAcceptedAt ?? null,
      lastAcceptedAt: vonage.lastAcceptedAt ?? null,
    })
  } else if (message.type === 'callbackTimes') {
    // Two flat arrays: less JSON on the channel than 100,000 {sentAt, ms} objects.
    process.send!({ type: 'callbackTimes', sentAt: vonage.callbackTimes.map((t) => t.sentAt), ms: vonage.callbackTimes.map((t) => t.ms) })
  } else if (message.type === 'reset') {
    vonage.firstAcceptedAt = undefined
    vonage.lastAcceptedAt = undefined
    vonage.callbackTimes.length = 0
    vonage.maxInFlight = vonage.inFlight
    process.send!({ type: 'reset' })
  }
})
process.stdout.write(`${JSON.stringify({ port: vonage.port, url: vonage.url, credentials: vonage.credentials, signatureSecret: vonage.signatureSecret })}\n`)
