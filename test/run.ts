// `npm test`: starts one PostgreSQL for the whole run (unless TIDINGS_TEST_DATABASE_URL is set), then runs
// every test file with node's test runner through tsx, on both databases.
import { spawn } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { startEmbeddedPostgres, type PostgresServer } from './helpers/postgres.js'

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
if (!process.env.TIDINGS_TEST_DATABASE_URL) {
  server = await startEmbeddedPostgres()
  process.env.TIDINGS_TEST_DATABASE_URL = server.url
}

const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], { stdio: 'inherit', env: process.env })
const code = await new Promise<number>((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))))
await server?.stop()
process.exit(code)
