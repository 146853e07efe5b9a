// `npm run bench:contact-adds` (issue 20): what one add of contacts (services addContacts, the whole of
// POST /addressbooks/{id}/emails below HTTP) costs down each PostgreSQL path of storage/repos/contact-upserts.ts,
// by batch size: the plain one (one INSERT of arrays) and the bulk one (COPY through a staging table). It tells
// where upsertPaths.plainMax belongs.
//
// In this process, on one list of one account: for each size, BENCH_ROUNDS rounds, each running the adds on each
// path in turn for BENCH_ROUND_SECONDS, one add after the other. Each add sends `size` new contacts with one
// variable (as bench:load's adds do), and with BENCH_EXISTING=1 the same number of contacts already in the list
// besides (their variables merged). Reported per add: CPU µs of this process (the API process's share, HTTP aside)
// and of PostgreSQL (an embedded one is this run's child), the median of the rounds. SQLite has one path: its
// figure is the reference of the same sizes.
//
// Environment: BENCH_ADD_SIZES (2,10,50,100,200,500,1000), BENCH_ROUNDS (3), BENCH_ROUND_SECONDS (1),
// BENCH_EXISTING (0), BENCH_TARGETS (postgres,sqlite), TIDINGS_TEST_DATABASE_URL.
import pino from 'pino'
import { fmt, machine, positiveNumber, targetsFromEnv, writeResults } from './lib/env.js'
import { namedTreeCpuSeconds } from './lib/proc-stats.js'
import { benchEachDialect, createBenchDatabase, postgresSource, type Dialect } from './lib/tidings.js'
import { loadConfig } from '../src/config/load.js'
import { openDeps } from '../src/main.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { createAccount } from '../src/services/accounts/accounts.js'
import { createBook } from '../src/services/audience/addressbooks.js'
import { addContacts } from '../src/services/audience/contacts.js'
import { upsertPaths } from '../src/storage/repos/contact-upserts.js'

const SIZES = (process.env.BENCH_ADD_SIZES || '2,10,50,100,200,500,1000').split(',').map((s) => Math.max(1, Math.round(Number(s))))
const ROUNDS = Math.round(positiveNumber('BENCH_ROUNDS', 3))
const ROUND_SECONDS = positiveNumber('BENCH_ROUND_SECONDS', 1)
const EXISTING = process.env.BENCH_EXISTING === '1'

type Path = 'plain' | 'bulk'
const PATH_LIMITS: Record<Path, number> = { plain: Infinity, bulk: 0 }

interface Figure {
  dialect: Dialect
  path: Path | 'sqlite'
  size: number
  adds: number
  /** Medians over the rounds, per add. */
  nodeCpuMicros: number
  postgresCpuMicros: number | null
  wallMicros: number
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function benchDialect(dialect: Dialect): Promise<Figure[]> {
  const database = await createBenchDatabase(dialect)
  const { deps, storage } = openDeps(loadConfig({ env: database.env }), pino({ level: 'warn' }))
  const figures: Figure[] = []
  try {
    await migrateToLatest(storage.db as never)
    const account = await createAccount(deps, { name: 'adds' })
    const bookId = await createBook(deps, account.id, 'adds')
    let serial = 0
    const newContacts = (n: number) => Array.from({ length: n }, () => ({ email: `add${serial++}@example.com`, variables: { name: `Add ${serial}` } }))
    const existing = newContacts(Math.max(...SIZES))
    await addContacts(deps, account.id, bookId, existing, { source: 'api' })
    const paths: (Path | 'sqlite')[] = dialect === 'postgres' ? ['plain', 'bulk'] : ['sqlite']
    for (const size of SIZES) {
      const rounds = new Map(paths.map((p) => [p, [] as { adds: number; node: number; pg: number | null; wall: number }[]]))
      for (let round = 0; round < ROUNDS; round++) {
        for (const path of paths) {
          upsertPaths.plainMax = path === 'sqlite' ? upsertPaths.plainMax : PATH_LIMITS[path]
          const cpuStart = process.cpuUsage()
          const pgStart = namedTreeCpuSeconds(process.pid, 'postgres')
          const start = performance.now()
          let adds = 0
          while (performance.now() - start < ROUND_SECONDS * 1000) {
            const items = EXISTING ? [...newContacts(size), ...existing.slice(0, size).map((c) => ({ ...c, variables: { seen: adds } }))] : newContacts(size)
            const summary = await addContacts(deps, account.id, bookId, items, { source: 'api' })
            if (summary.added !== size) throw new Error(`an add of ${size} new contacts added ${summary.added}`)
            adds++
          }
          const wall = (performance.now() - start) * 1000
          const cpu = process.cpuUsage(cpuStart)
          const pgEnd = namedTreeCpuSeconds(process.pid, 'postgres')
          rounds.get(path)!.push({ adds, node: (cpu.user + cpu.system) / adds, pg: pgStart === null || pgEnd === null ? null : ((pgEnd - pgStart) * 1e6) / adds, wall: wall / adds })
        }
      }
      for (const path of paths) {
        const r = rounds.get(path)!
        const pg = r.map((x) => x.pg)
        figures.push({
          dialect,
          path,
          size,
          adds: r.reduce((sum, x) => sum + x.adds, 0),
          nodeCpuMicros: median(r.map((x) => x.node)),
          postgresCpuMicros: pg.includes(null) ? null : median(pg as number[]),
          wallMicros: median(r.map((x) => x.wall)),
        })
        const f = figures.at(-1)!
        console.log(
          `${dialect} ${path.padEnd(6)} size ${String(size).padStart(5)}: ${String(f.adds).padStart(6)} adds, CPU µs per add: node ${fmt(f.nodeCpuMicros, 0)}, PostgreSQL ${f.postgresCpuMicros === null ? '–' : fmt(f.postgresCpuMicros, 0)}; wall µs ${fmt(f.wallMicros, 0)}`,
        )
      }
    }
  } finally {
    await storage.close()
    await database.drop()
  }
  return figures
}

console.log(`contact adds: sizes ${SIZES.join(', ')}, ${ROUNDS} rounds of ${ROUND_SECONDS} s per path${EXISTING ? ', as many existing contacts besides' : ''}; PostgreSQL: ${postgresSource()}`)
const figures = (await benchEachDialect(targetsFromEnv<Dialect>(['postgres', 'sqlite']), benchDialect)).flat()
const file = writeResults('contact-adds', { date: new Date().toISOString(), machine: machine(), sizes: SIZES, rounds: ROUNDS, roundSeconds: ROUND_SECONDS, existing: EXISTING, figures })
console.log(`results: ${file}`)
