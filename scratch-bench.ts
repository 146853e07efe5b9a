import http from 'node:http'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { pino } from 'pino'
import { vonageChannel } from './src/delivery/viber/vonage.js'
import { vonageRequestOf } from './src/delivery/viber/vonage-request.js'
import type { OutboundViber } from './src/delivery/viber/channel.js'

const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/vonage-process.ts'], { env: { ...process.env, BENCH_VONAGE_OUTCOME: 'none' }, stdio: ['ignore', 'pipe', 'inherit'] })
const first = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next()
const { url, credentials } = JSON.parse(first.value as string)
const N = Number(process.env.N ?? 20000), C = Number(process.env.C ?? 20)
const msgs: OutboundViber[] = Array.from({ length: N }, (_, i) => ({ messageId: i + 1, to: String(380500000000 + i), from: 'Tidings', category: 'promotion', text: 'Hello there, a sale today', imageUrl: null, button: { text: 'Open', url: 'https://example.com/r/abc' }, ttlSeconds: 3600 }))

async function ours() {
  const ch = vonageChannel({ url, credentials, webhookUrl: 'http://127.0.0.1:1/viber/callbacks/vonage', concurrency: C, timeoutMs: 10000, log: pino({ level: 'silent' }) })
  const t = performance.now()
  for (let i = 0; i < N; i += 1000) { const r = await ch.send(msgs.slice(i, i + 1000)); if (!r.every((x) => x.ok)) throw new Error(JSON.stringify(r.find((x) => !x.ok))) }
  const s = performance.now() - t; await ch.close(); return N / s * 1000
}
async function bare() {
  const agent = new http.Agent({ keepAlive: true, maxSockets: C })
  const auth = `Basic ${Buffer.from(credentials).toString('base64')}`
  let next = 0
  const t = performance.now()
  await Promise.all(Array.from({ length: C }, async () => {
    while (next < N) {
      const m = msgs[next++]!
      const body = JSON.stringify(vonageRequestOf(m, 'http://127.0.0.1:1/viber/callbacks/vonage'))
      await new Promise<void>((res, rej) => { const r = http.request(url, { method: 'POST', agent, headers: { authorization: auth, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (resp) => { resp.resume(); resp.on('end', res) }); r.on('error', rej); r.end(body) })
    }
  }))
  const s = performance.now() - t; agent.destroy(); return N / s * 1000
}
async function viaFetch() {
  const auth = `Basic ${Buffer.from(credentials).toString('base64')}`
  let next = 0
  const t = performance.now()
  await Promise.all(Array.from({ length: C }, async () => {
    while (next < N) {
      const m = msgs[next++]!
      const body = JSON.stringify(vonageRequestOf(m, 'http://127.0.0.1:1/viber/callbacks/vonage'))
      const r = await fetch(url, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body }); await r.text()
    }
  }))
  return N / (performance.now() - t) * 1000
}
for (let round = 0; round < 2; round++) {
  console.log('bare', Math.round(await bare()), 'ours', Math.round(await ours()), 'fetch', Math.round(await viaFetch()))
}
child.kill()
