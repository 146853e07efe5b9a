// The test SMSC (test/helpers/smsc.ts) in a process of its own, for benchmarks: it acknowledges every submit_sm
// and sends a receipt for each (BENCH_SMSC_RECEIPTS=none: no receipts), records nothing, and prints
// `{"port":N}` on its first line of output. Forked with IPC, it also answers `{ type: 'counts' }`.
// Run: node --import tsx bench/lib/smsc-process.ts [port]
import { startSmsc } from '../../test/helpers/smsc.js'

const smsc = await startSmsc({ record: false, port: Number(process.argv[2] ?? 0) })
smsc.receipts = process.env.BENCH_SMSC_RECEIPTS === 'none' ? 'none' : 'after'
smsc.respondDelayMs = Number(process.env.BENCH_SMSC_DELAY_MS ?? 0)

const stop = () => void smsc.close().then(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
process.on('disconnect', stop)
process.on('message', (message: { type?: string }) => {
  if (message.type === 'counts') {
    process.send!({ type: 'counts', submits: smsc.submitCount, receiptsAcknowledged: smsc.receiptsAcknowledged })
  }
})
process.stdout.write(`${JSON.stringify({ port: smsc.port, url: smsc.url })}\n`)
