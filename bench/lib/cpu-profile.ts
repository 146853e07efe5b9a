// A server's CPU profile (`node --cpu-prof`, BENCH_PROFILE=1) summarised over a window of the run: self time by
// area (a package, node internals, Tidings' own dist/<directory>, GC, native) and the top functions, as shares
// of the main thread's busy time. Used by bench/send.ts and bench/webhooks.ts.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fmt, RESULTS_DIR } from './env.js'

export interface ProfileSummary {
  file: string
  /** The window summarised, in seconds after the profile started (the server's start). */
  window: { from: number; to: number }
  sampledMs: number
  idleMs: number
  /** Self time by where the code lives: a package, node internals, Tidings' own directories, GC, native. */
  areas: { area: string; selfMs: number; share: number }[]
  functions: { name: string; where: string; area: string; selfMs: number; share: number }[]
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }[]
  startTime: number
  samples: number[]
  timeDeltas: number[]
}

/** The newest profile of that name in bench/results/profiles/ (written when the server exits). */
export function latestProfile(name: string): string {
  const dir = join(RESULTS_DIR, 'profiles')
  const file = readdirSync(dir)
    .filter((f) => f.startsWith(`${name}-`) && f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)
    .at(-1)
  if (!file) throw new Error(`no ${name}-*.cpuprofile in ${dir}`)
  return file
}

/**
 * Self time per function and per area, over the samples taken in the window (seconds since the profile's
 * start, which is close to the server's spawn: a window measured from the spawn is known to ±0.1 s). Shares
 * are of the non-idle time.
 */
export function summariseProfile(file: string, window: { from: number; to: number }): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]))
  const selfByNode = new Map<number, number>()
  let t = 0
  let sampled = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0
    t += delta
    const seconds = t / 1e6
    if (seconds < window.from || seconds > window.to) continue
    const id = profile.samples[i]!
    selfByNode.set(id, (selfByNode.get(id) ?? 0) + delta / 1000)
    sampled += delta / 1000
  }
  const functions = new Map<string, { name: string; where: string; area: string; selfMs: number }>()
  const areas = new Map<string, number>()
  let idle = 0
  for (const [id, ms] of selfByNode) {
    const frame = nodes.get(id)!
    if (frame.functionName === '(idle)') {
      idle += ms
      continue
    }
    const area = areaOf(frame.functionName, frame.url)
    const where = frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : ''
    const key = `${frame.functionName}@${where}`
    const entry = functions.get(key) ?? { name: frame.functionName || '(anonymous)', where, area, selfMs: 0 }
    entry.selfMs += ms
    functions.set(key, entry)
    areas.set(area, (areas.get(area) ?? 0) + ms)
  }
  const busy = Math.max(1e-9, sampled - idle)
  return {
    file,
    window,
    sampledMs: sampled,
    idleMs: idle,
    areas: [...areas].map(([area, selfMs]) => ({ area, selfMs, share: selfMs / busy })).sort((a, b) => b.selfMs - a.selfMs),
    functions: [...functions.values()].map((f) => ({ ...f, share: f.selfMs / busy })).sort((a, b) => b.selfMs - a.selfMs).slice(0, 40),
  }
}

export function areaOf(name: string, url: string): string {
  if (name === '(garbage collector)') return 'GC'
  if (name === '(program)') return 'V8/native (program)'
  if (!url) return 'native'
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (pkg) return pkg[1]!
  // node:internal/streams/readable → node:internal/streams, node:events → node:events
  if (url.startsWith('node:')) return url.split('/').slice(0, url.startsWith('node:internal/') ? 2 : 1).join('/')
  // The compiled server: dist/<directory>/… (dist/main.js: main)
  const own = /\/dist\/(?:src\/)?([^/]+?)(?:\.js)?(?:\/|$)/.exec(url)
  if (own) return `tidings ${own[1]}`
  return 'other'
}

export function shortUrl(url: string): string {
  const at = url.lastIndexOf('/node_modules/')
  if (at >= 0) return url.slice(at + '/node_modules/'.length)
  const own = url.indexOf('/dist/')
  return own >= 0 ? url.slice(own + 1) : url.replace(/^file:\/\//, '')
}

/** Prints the summary as two markdown tables; `during` names the window ("the campaign"). */
export function printProfile(label: string, p: ProfileSummary, during: string): void {
  const busy = p.sampledMs - p.idleMs
  console.log(`\nWhere the server's main thread spent ${during} (${label}): ${fmt(busy / 1000, 1)} s busy, ${fmt(p.idleMs / 1000, 1)} s idle; ${p.file}`)
  console.log('\n| area | self ms | share |')
  console.log('|---|---:|---:|')
  for (const a of p.areas.slice(0, 15)) console.log(`| ${a.area} | ${fmt(a.selfMs, 0)} | ${fmt(a.share * 100, 1)}% |`)
  console.log('\n| function | where | self ms | share |')
  console.log('|---|---|---:|---:|')
  for (const f of p.functions.slice(0, 25)) console.log(`| ${f.name} | ${f.where || f.area} | ${fmt(f.selfMs, 0)} | ${fmt(f.share * 100, 1)}% |`)
}
