// `npm test`: starts one PostgreSQL for the whole run (unless TIDINGS_TEST_DATABASE_URL is set) while it brings dist/
// up to date (the CLI tests start the built `tidings`), migrates a template database of each dialect that every
// suite's database is copied from (test/helpers/databases.ts), then runs every test file with node's test runner
// through tsx, on both databases.
import { spawn } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { startEmbeddedPostgres, type PostgresServer } from './helpers/postgres.js'
import { buildDist } from './helpers/build.js'
import { createTemplates } from './helpers/databases.js'

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) return testFiles(path)
    return path.endsWith('.test.ts') ? [path] : []
  })
}

const only = process.argv.slice(2)
const files = only.length > 0 ? only : [...testFiles('test/unit'), ...testFiles('test/integration'), ...testFiles('test/browser')].sort()
let server: PostgresServer | undefined
const built = buildDist()
if (!process.env.TIDINGS_TEST_DATABASE_URL) {
  server = await startEmbeddedPostgres()
  process.env.TIDINGS_TEST_DATABASE_URL = server.url
}
const templates = await createTemplates()
await built.catch(async (err: unknown) => {
  await templates.drop()
  await server?.stop()
  throw err
})

const env = { ...process.env, ...templates.env }
// Test files at once: 2 for the 2-core CI machine; TIDINGS_TEST_CONCURRENCY tries another number.
const concurrency = process.env.TIDINGS_TEST_CONCURRENCY ?? '2'
const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], { stdio: 'inherit', env })
const code = await new Promise<number>((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))))
await templates.drop()
await server?.stop()
process.exit(code)
