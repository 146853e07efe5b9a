// Fails when the compiled code (dist/, after `npm run build`) loads a package that is not in package.json
// "dependencies": `npm prune --omit=dev` (a production install) removes devDependencies, and the service would
// fail to start, or fail later at the first lazy load. dist/ rather than src/: type-only imports are gone there.
// Usage: npx tsx scripts/check-runtime-deps.ts
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join } from 'node:path'

// Statements start a line in tsc's output; a specifier has no quotes, spaces or line breaks.
const SPECIFIERS = [
  /^(?:import|export)\b[^;]*?\bfrom\s*(['"])([^'"\s]+)\1/gm, // import … from 'x', export … from 'x'
  /^import\s*(['"])([^'"\s]+)\1/gm, // import 'x'
  /\bimport\(\s*(['"])([^'"\s]+)\1\s*\)/g, // import('x')
  /\b(?:require|createRequire\([^)]*\))\(\s*(['"])([^'"\s]+)\1\s*\)/g, // require('x'), createRequire(…)('x')
  /\btarget:\s*(['"])([^'"\s]+)\1/g, // pino loads its transports by package name: transport: { target: 'x' }
  /\blazyRequire\(\s*(['"])([^'"\s]+)\1/g, // lib/lazy-require.ts: lazyRequire('x'), loaded on first use
]

// Named in dist/ but loaded only when the TypeScript sources run (tests), never by the built service.
const SOURCES_ONLY = new Map([['tsx', 'lib/worker-thread.ts starts a worker of a .ts script through it']])

function jsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) return jsFiles(path)
    return path.endsWith('.js') ? [path] : []
  })
}

/** The package a bare specifier loads ('@scope/name/deep' → '@scope/name'); undefined for files and builtins. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined
  const name = specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')
  return builtinModules.includes(name) ? undefined : name
}

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies?: Record<string, string> }
const dependencies = new Set(Object.keys(manifest.dependencies ?? {}))
const used = new Map<string, Set<string>>()
for (const file of jsFiles('dist')) {
  const text = readFileSync(file, 'utf8')
  for (const pattern of SPECIFIERS) {
    for (const match of text.matchAll(pattern)) {
      const name = packageOf(match[2]!)
      if (name) used.set(name, (used.get(name) ?? new Set()).add(file))
    }
  }
}

const missing = [...used.keys()].filter((name) => !dependencies.has(name) && !SOURCES_ONLY.has(name)).sort()
const unused = [...dependencies].filter((name) => !used.has(name)).sort()
console.log(`dist/ loads ${used.size} packages: ${[...used.keys()].sort().join(', ')}`)
if (unused.length > 0) console.log(`in "dependencies" but not loaded by dist/ (needed by another package, or movable to devDependencies): ${unused.join(', ')}`)
if (missing.length > 0) {
  for (const name of missing) console.error(`${name} is loaded at run time (${[...used.get(name)!].join(', ')}) but is not in "dependencies"`)
  process.exit(1)
}
console.log('every package loaded at run time is in "dependencies"')
