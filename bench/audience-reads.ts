// `npm run bench:audience-reads`: reads of a large audience, on SQLite and on PostgreSQL.
//
// 1. Paging one list of BENCH_CONTACTS (1,000,000) contacts: GET /addressbooks/{id}/emails?limit=100&offset=N
//    at offsets 0, 10% of the list (100,000) and the last page (999,900).
// 2. GET /emails/{email} over BENCH_CONTACTS contacts of another account in 100 lists of 1% each (10,000):
//    list k holds addresses k·9,000 … k·9,000+9,999, so neighbouring lists share 1,000 addresses (901,000
//    distinct, 10% of them in two lists); each request asks for a random existing address.
//
// Both data sets are loaded through POST /addressbooks/{id}/emails (10,000 per request, 2 in flight) into a fresh
// database, against `node bin/tidings.js serve` (compiled dist/) in a child process.
//
// Latency is measured with sequential requests on one kept-alive connection (node:http, microsecond timing:
// autocannon's histogram counts whole milliseconds, too coarse for a 5 ms goal): BENCH_READS_REQUESTS (200) per
// paging offset and 10× that for the address look-ups, each after a tenth as many untimed warm-up requests.
// Throughput of the look-ups is measured with autocannon (BENCH_CONNECTIONS, default 10, for BENCH_DURATION
// seconds, default 10; random addresses through a request generator).
//
// Environment: BENCH_CONTACTS, BENCH_READS_REQUESTS, BENCH_CONNECTIONS, BENCH_DURATION, BENCH_TARGETS
// (sqlite,postgres), BENCH_PROFILE=1, BENCH_SKIP_BUILD=1, TIDINGS_TEST_DATABASE_URL.
import { autocannon, type AutocannonRequest } from './lib/autocannon.js'
import { fmt, machine, positiveNumber, targetsFromEnv, writeResults } from './lib/env.js'
import { buildUnlessSkipped, peakRssMiB, PROFILE } from './lib/processes.js'
import { withAdmin } from '../test/helpers/databases.js'
import { benchContact, postContacts } from './lib/contacts.js'
import { json, timeSequentialGets, type LatencySummary } from './lib/http.js'
import {
  authorization,
  createAccount,
  createBenchDatabase,
  createList,
  expectListSize,
  postgresSource,
  startServer,
  benchEachDialect,
  type Dialect,
} from './lib/tidings.js'

const CONTACTS = positiveNumber('BENCH_CONTACTS', 1_000_000)
const REQUESTS = positiveNumber('BENCH_READS_REQUESTS', 200)
/** Timed seconds per paging offset at most: a deep offset can take half a second per request. */
const MAX_SECONDS = positiveNumber('BENCH_READS_SECONDS', 15)
const CONNECTIONS = positiveNumber('BENCH_CONNECTIONS', 10)
const DURATION = positiveNumber('BENCH_DURATION', 10)
const TARGETS = targetsFromEnv<Dialect>(['sqlite', 'postgres'])
const LOAD = { batch: 10_000, concurrency: 2 }
const LISTS = 100
const PER_LIST = Math.floor(CONTACTS / LISTS)
/** Addresses shared by neighbouring lists: a tenth of a list. */
const SHARED = Math.floor(PER_LIST / 10)
const DISTINCT_ADDRESSES = (LISTS - 1) * (PER_LIST - SHARED) + PER_LIST
const LOOKUP_P99_GOAL_MS = 5

interface PagingResult extends LatencySummary {
  /** `again`: the same page repeatedly; `cold`: pages at offsets no earlier request started or ended at. */
  mode?: 'again' | 'cold'
  offset: number
}

interface LookupResult {
  sequential: LatencySummary
  autocannon: { connections: number; seconds: number; reqPerSec: number; p50Ms: number; p99Ms: number; non2xx: number; errors: number }
}

interface TargetResult {
  dialect: Dialect
  loadSeconds: { list: number; lists: number }
  /** PostgreSQL only: before the statistics are updated. */
  pagingRightAfterLoad?: PagingResult & { autoAnalyzed: boolean }
  paging: PagingResult[]
  lookup: LookupResult
  serverPeakRssMiB: number | null
}

async function main(): Promise<void> {
  buildUnlessSkipped()
  console.log(`one list of ${fmt(CONTACTS, 0)} contacts; ${LISTS} lists of ${fmt(PER_LIST, 0)} (${fmt(DISTINCT_ADDRESSES, 0)} addresses); ${TARGETS.join(', ')}`)
  report(await benchEachDialect(TARGETS, benchTarget))
}

async function benchTarget(dialect: Dialect): Promise<TargetResult> {
  const database = await createBenchDatabase(dialect)
  const server = await startServer(database, `audience-reads-${dialect}`)
  try {
    const pager = await authorization(server.base, createAccount(database, 'pager'))
    const looker = await authorization(server.base, createAccount(database, 'looker'))

    console.log(`${dialect}: loading one list of ${fmt(CONTACTS, 0)} …`)
    let started = performance.now()
    const list = await createList(server.base, pager, 'one big list')
    await postContacts(server.base, pager, list, { from: 0, to: CONTACTS, ...LOAD })
    const listSeconds = (performance.now() - started) / 1000
    await expectListSize(server.base, pager, list, CONTACTS)

    console.log(`${dialect}: loading ${LISTS} lists …`)
    started = performance.now()
    const lists: number[] = []
    for (let k = 0; k < LISTS; k++) lists.push(await createList(server.base, looker, `list ${k}`))
    let nextList = 0
    const loadLists = async () => {
      while (nextList < LISTS) {
        const k = nextList++
        const from = k * (PER_LIST - SHARED)
        await postContacts(server.base, looker, lists[k]!, { from, to: from + PER_LIST, batch: LOAD.batch, concurrency: 1, prefix: 'e' })
      }
    }
    await Promise.all(Array.from({ length: LOAD.concurrency }, loadLists))
    const listsSeconds = (performance.now() - started) / 1000

    // PostgreSQL plans the paging query from table statistics, which a bulk load leaves stale until autovacuum
    // analyzes the table (autovacuum_naptime, 1 min by default): a few requests show the plan as it is right
    // after the load; then VACUUM ANALYZE does what autovacuum would, so that the measurements below see the
    // steady state and no autovacuum worker competes with them for the two cores.
    let afterLoad: (LatencySummary & { offset: number; autoAnalyzed: boolean }) | undefined
    if (dialect === 'postgres') {
      const offset = Math.floor(CONTACTS / 10)
      const autoAnalyzed = await withAdmin(database.url, async (c) =>
        (await c.query(`select last_autoanalyze is not null as done from pg_stat_user_tables where relname = 'contacts'`)).rows[0]?.done === true,
      )
      const r = await timeSequentialGets(server.base, pager, () => `/addressbooks/${list}/emails?limit=100&offset=${offset}`, { count: 5, warmup: 0 })
      console.log(`  paging at offset ${fmt(offset, 0)} right after the load (auto-analyzed: ${autoAnalyzed}): p50 ${fmt(r.p50Ms, 2)} ms`)
      afterLoad = { offset, autoAnalyzed, ...r }
      await withAdmin(database.url, (c) => c.query('vacuum analyze contacts'))
    }
    const paging: PagingResult[] = []
    for (const offset of [0, Math.floor(CONTACTS / 10), CONTACTS - 100]) {
      const path = `/addressbooks/${list}/emails?limit=100&offset=${offset}`
      const page = await json<unknown[]>(`${server.base}${path}`, { headers: pager })
      if (page.length !== 100) throw new Error(`${path} answered ${page.length} contacts`)
      // The same page again: the server remembers where it starts and answers by keyset (src/services/audience/page-cursors.ts).
      const again = await timeSequentialGets(server.base, pager, () => path, { count: REQUESTS, warmup: 5, maxSeconds: MAX_SECONDS })
      console.log(`  paging at offset ${fmt(offset, 0)}, same page again: p50 ${fmt(again.p50Ms, 2)} ms, p99 ${fmt(again.p99Ms, 2)} ms (${again.requests} requests)`)
      paging.push({ offset, mode: 'again', ...again })
      // A page no request started at or ended before (offsets 37 apart): the database skips `offset` rows.
      let k = 0
      const coldPath = () => `/addressbooks/${list}/emails?limit=100&offset=${Math.max(1, offset - 37 * ++k)}`
      const cold = await timeSequentialGets(server.base, pager, coldPath, { count: REQUESTS, warmup: 0, maxSeconds: MAX_SECONDS })
      console.log(`  paging near offset ${fmt(offset, 0)}, never asked before: p50 ${fmt(cold.p50Ms, 2)} ms, p99 ${fmt(cold.p99Ms, 2)} ms (${cold.requests} requests)`)
      paging.push({ offset, mode: 'cold', ...cold })
    }

    const lookup = await benchLookups(server.base, looker)
    return { dialect, loadSeconds: { list: listSeconds, lists: listsSeconds }, pagingRightAfterLoad: afterLoad, paging, lookup, serverPeakRssMiB: peakRssMiB(server.child.process.pid!) }
  } finally {
    await server.stop()
    await database.drop()
  }
}

function randomAddressPath(): string {
  return `/emails/${encodeURIComponent(benchContact(Math.floor(Math.random() * DISTINCT_ADDRESSES), 'e').email)}`
}

async function benchLookups(base: string, headers: Record<string, string>): Promise<LookupResult> {
  // Address k·9,000 + 9,500 (here k = 1) is in lists k and k+1: the answer must name both.
  const shared = benchContact((PER_LIST - SHARED) * 1 + PER_LIST - SHARED / 2, 'e').email
  const both = await json<{ book_id: number }[]>(`${base}/emails/${encodeURIComponent(shared)}`, { headers })
  if (both.length !== 2) throw new Error(`GET /emails/${shared} answered ${JSON.stringify(both).slice(0, 300)}`)

  const sequential = await timeSequentialGets(base, headers, randomAddressPath, { count: REQUESTS * 10, warmup: REQUESTS })
  console.log(`  GET /emails/{email}, sequential: p50 ${fmt(sequential.p50Ms, 2)} ms, p99 ${fmt(sequential.p99Ms, 2)} ms`)
  const requests: AutocannonRequest[] = [{ setupRequest: (req) => ({ ...req, path: randomAddressPath() }) }]
  const r = await autocannon({ url: base, connections: CONNECTIONS, duration: DURATION, headers, requests })
  const loaded = {
    connections: CONNECTIONS,
    seconds: r.duration,
    reqPerSec: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  }
  console.log(`  GET /emails/{email}, autocannon ${CONNECTIONS} connections: ${fmt(loaded.reqPerSec, 0)} req/s, p50 ${loaded.p50Ms} ms, p99 ${loaded.p99Ms} ms, non-2xx ${loaded.non2xx}, errors ${loaded.errors}`)
  return { sequential, autocannon: loaded }
}

function report(results: TargetResult[]): void {
  const goals = results.map((r) => ({
    goal: `${r.dialect}: GET /emails/{email} p99 < ${LOOKUP_P99_GOAL_MS} ms (sequential)`,
    value: r.lookup.sequential.p99Ms,
    met: r.lookup.sequential.p99Ms < LOOKUP_P99_GOAL_MS,
  }))
  const date = new Date().toISOString()
  const environment = {
    ...machine(),
    contacts: CONTACTS,
    lists: LISTS,
    perList: PER_LIST,
    distinctAddresses: DISTINCT_ADDRESSES,
    sequentialRequests: REQUESTS,
    postgres: TARGETS.includes('postgres') ? postgresSource() : null,
    profiled: PROFILE,
  }
  const file = writeResults('audience-reads', { date, environment, results, goals })

  console.log('')
  console.log('| database | request | p50 (ms) | p90 (ms) | p99 (ms) | req/s |')
  console.log('|---|---|---:|---:|---:|---:|')
  for (const r of results) {
    const a0 = r.pagingRightAfterLoad
    if (a0) console.log(`| ${r.dialect} | emails?limit=100&offset=${fmt(a0.offset, 0)} right after the load${a0.autoAnalyzed ? '' : ', before ANALYZE'} (${a0.requests} requests) | ${fmt(a0.p50Ms, 2)} | ${fmt(a0.p90Ms, 2)} | ${fmt(a0.p99Ms, 2)} | ${fmt(1000 / a0.meanMs, 0)} |`)
    for (const p of r.paging) {
      console.log(`| ${r.dialect} | emails?limit=100&offset=${p.mode === 'cold' ? '~' : ''}${fmt(p.offset, 0)} (${p.mode === 'cold' ? 'never asked before' : 'same page again'}) | ${fmt(p.p50Ms, 2)} | ${fmt(p.p90Ms, 2)} | ${fmt(p.p99Ms, 2)} | ${fmt(1000 / p.meanMs, 0)} |`)
    }
    const s = r.lookup.sequential
    console.log(`| ${r.dialect} | /emails/{email} (sequential) | ${fmt(s.p50Ms, 2)} | ${fmt(s.p90Ms, 2)} | ${fmt(s.p99Ms, 2)} | ${fmt(1000 / s.meanMs, 0)} |`)
    const a = r.lookup.autocannon
    console.log(`| ${r.dialect} | /emails/{email} (autocannon, ${a.connections} connections) | ${a.p50Ms} | – | ${a.p99Ms} | ${fmt(a.reqPerSec, 0)} |`)
  }
  console.log('')
  for (const r of results) {
    console.log(`${r.dialect}: loading took ${fmt(r.loadSeconds.list, 1)} s (one list) and ${fmt(r.loadSeconds.lists, 1)} s (${LISTS} lists); server peak RSS ${r.serverPeakRssMiB === null ? '–' : fmt(r.serverPeakRssMiB, 0)} MiB`)
  }
  for (const g of goals) console.log(`${g.met ? 'MET   ' : 'MISSED'} ${g.goal} (measured ${fmt(g.value, 2)})`)
  console.log(`\n${environment.cpus} CPUs (${environment.cpuModel}), node ${process.version}; results written to ${file}`)
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err)
  process.exitCode = 1
})
