// `npm run bench:memory`: the resident memory of an idle `tidings serve` (SQLite, default settings) after start,
// where it goes, and what each part loaded on first use adds, against two references started the same way in
// the same run: node's own http server (the floor of any Node process) and a bare Fastify 5 route.
//
// Environment: BENCH_IDLE_SECONDS (default 30: the last idle sample), BENCH_SKIP_BUILD=1 (use dist/ as it is).
import { readFileSync } from 'node:fs'
import { fmt, machine, positiveNumber, printGoals, writeResults } from './lib/env.js'
import { buildUnlessSkipped, run, startChild, waitFor, type Child } from './lib/processes.js'
import { rssMiB } from './lib/proc-stats.js'
import { authorization, createAccount, createBenchDatabase, createList, freePort, type BenchDatabase } from './lib/tidings.js'
import { json } from './lib/http.js'

const IDLE_SECONDS = positiveNumber('BENCH_IDLE_SECONDS', 30)
const SAMPLES = [2, 5, 10, IDLE_SECONDS].filter((s, i, all) => s <= IDLE_SECONDS && all.indexOf(s) === i)
const GOAL_MIB = 100

const NODE_HTTP = `require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')`
const BARE_FASTIFY = `import Fastify from 'fastify'
const app = Fastify()
app.get('/healthz', async () => ({ status: 'ok' }))
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })`

interface Started {
  child: Child
  base: string
}

async function startReference(name: string, args: string[]): Promise<Started> {
  const port = await freePort()
  const child = startChild(name, 'node', args, { ...process.env, PORT: String(port) })
  const base = `http://127.0.0.1:${port}`
  await waitFor(name === 'node-http' ? base : `${base}/healthz`, child)
  return { child, base }
}

/** RSS at each of SAMPLES seconds after the process answered, sampled while nothing else talks to it. */
async function idleSamples(pid: number): Promise<Record<string, number>> {
  const samples: Record<string, number> = {}
  let waited = 0
  for (const at of SAMPLES) {
    await new Promise((done) => setTimeout(done, (at - waited) * 1000))
    waited = at
    samples[`${at}s`] = rssMiB(pid) ?? NaN
  }
  return samples
}

/** Resident memory by mapping (/proc/<pid>/smaps): the node binary's pages, anonymous memory, malloc's heap. */
function residentByMapping(pid: number): Record<string, number> {
  const totals: Record<string, number> = {}
  let name = ''
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (mapping) {
      const path = mapping[1]!.trim()
      name = path === '' ? 'anonymous (V8 heap, buffers, thread stacks)' : path === '[heap]' ? 'malloc heap' : path.endsWith('/node') ? 'node binary' : path.startsWith('[') ? path : 'shared libraries and other files'
      continue
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss) totals[name] = (totals[name] ?? 0) + Number(rss[1]) / 1024
  }
  return totals
}

/** V8's heap spaces as the server's own /metrics reports them (prom-client default metrics). */
async function heapSpaces(base: string): Promise<Record<string, { size: number; used: number }>> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const spaces: Record<string, { size: number; used: number }> = {}
  for (const match of text.matchAll(/^nodejs_heap_space_size_(total|used)_bytes\{space="([a-z_]+)"\} (\d+)/gm)) {
    const entry = (spaces[match[2]!] ??= { size: 0, used: 0 })
    entry[match[1] === 'total' ? 'size' : 'used'] = Number(match[3]) / 1048576
  }
  return spaces
}

/** RSS after each first use, on the same server: what each part loaded on demand adds. */
async function firstUses(database: BenchDatabase, server: Started): Promise<{ step: string; rss: number }[]> {
  const pid = server.child.process.pid!
  const steps: { step: string; rss: number }[] = []
  const settle = async (step: string) => {
    await new Promise((done) => setTimeout(done, 2000))
    steps.push({ step, rss: rssMiB(pid) ?? NaN })
  }
  const headers = await authorization(server.base, createAccount(database))
  const list = await createList(server.base, headers, 'memory')
  await json(`${server.base}/addressbooks/${list}`, { headers })
  await settle('a token, a list created and read (validators and serializers of 3 routes compiled)')
  await json(`${server.base}/sms/numbers`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ addressBookId: list, phones: ['+380631234567'] }),
  })
  await settle('+ a phone number added (libphonenumber-js with its full metadata)')
  await json(`${server.base}/template`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'memory', body: Buffer.from('<h1>Hello {{name}}</h1><p><a href="https://example.org">x</a></p>').toString('base64'), lang: 'en' }),
  })
  await settle('+ a template added (Handlebars, HTML parsing, its preview)')
  return steps
}

/** GeoIP's data, loaded by the first open or click: measured in a process of its own (a hit needs a sent message). */
function geoipCostMiB(): number {
  const script = `const before = process.memoryUsage().rss
const { countryOfIp } = await import('./dist/tracking/geoip.js')
if (countryOfIp('8.8.8.8') === undefined) throw new Error('no country for 8.8.8.8')
console.log((process.memoryUsage().rss - before) / 1048576)`
  return Number(run('node', ['--input-type=module', '-e', script]))
}

async function main(): Promise<void> {
  buildUnlessSkipped()
  const rows: { target: string; samples: Record<string, number> }[] = []

  for (const [name, args] of [
    ['node-http', ['-e', NODE_HTTP]],
    ['bare-fastify', ['--input-type=module', '-e', BARE_FASTIFY]],
  ] as const) {
    const started = await startReference(name, [...args])
    rows.push({ target: name === 'node-http' ? "node's http server (the floor)" : 'bare Fastify 5, one route', samples: await idleSamples(started.child.process.pid!) })
    await started.child.stop()
  }

  // The default settings: SQLite, capture channels, no bounce listener, the default log level.
  const database = await createBenchDatabase('sqlite', process.env.LOG_LEVEL ?? 'info')
  createAccount(database, 'first')
  const port = await freePort()
  const child = startChild('tidings', 'node', ['bin/tidings.js', 'serve', '--host', '127.0.0.1', '--port', String(port)], database.env)
  const server = { child, base: `http://127.0.0.1:${port}` }
  await waitFor(`${server.base}/healthz`, child)
  const pid = child.process.pid!
  const tidings = await idleSamples(pid)
  rows.push({ target: 'Tidings `serve`, SQLite, defaults', samples: tidings })
  const mappings = residentByMapping(pid)
  const spaces = await heapSpaces(server.base)
  const uses = await firstUses(database, server)
  uses.push({ step: 'GeoIP data, in a process of its own: RSS added by the first lookup', rss: geoipCostMiB() })
  await child.stop()
  await database.drop()

  const columns = Object.keys(rows[0]!.samples)
  console.log(`\nidle RSS (MiB) after the process first answered\n`)
  console.log(`| process | ${columns.join(' | ')} |`)
  console.log(`|---|${columns.map(() => '---:').join('|')}|`)
  for (const row of rows) console.log(`| ${row.target} | ${columns.map((c) => fmt(row.samples[c]!, 1)).join(' | ')} |`)
  console.log(`\nwhere Tidings's RSS goes (MiB, at ${IDLE_SECONDS} s)\n`)
  for (const [name, mib] of Object.entries(mappings).sort((a, b) => b[1] - a[1])) if (mib >= 0.5) console.log(`| ${name} | ${fmt(mib, 1)} |`)
  console.log(`\nV8 heap spaces (MiB): ${Object.entries(spaces).filter(([, s]) => s.size >= 0.5).map(([n, s]) => `${n} ${fmt(s.used, 1)} used of ${fmt(s.size, 1)}`).join(', ')}`)
  console.log('\nfirst uses (RSS MiB after each)\n')
  for (const use of uses) console.log(`| ${use.step} | ${fmt(use.rss, 1)} |`)

  const last = tidings[`${IDLE_SECONDS}s`]!
  const worst = Math.max(...Object.entries(tidings).filter(([at]) => Number.parseInt(at) >= 5).map(([, rss]) => rss))
  const file = writeResults('memory', { date: new Date().toISOString(), machine: machine(), rows, mappings, spaces, uses })
  printGoals(
    [
      { goal: `idle RSS <= ${GOAL_MIB} MiB from 5 s after start`, met: worst <= GOAL_MIB, value: `${fmt(worst, 1)} MiB at worst, ${fmt(last, 1)} at ${IDLE_SECONDS} s` },
    ],
    machine(),
    file,
  )
}

await main()
