// What every benchmark shares: where results go, reading numeric settings from the environment, printing numbers.
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const RESULTS_DIR = join(ROOT, 'bench', 'results')

export function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got ${raw}`)
  return n
}

/** BENCH_TARGETS as a list, checked against the targets the benchmark knows. */
export function targetsFromEnv<T extends string>(known: readonly T[], fallback: readonly T[] = known): T[] {
  const raw = process.env.BENCH_TARGETS
  const asked = raw ? raw.split(',').map((t) => t.trim()) : [...fallback]
  for (const t of asked) if (!known.includes(t as T)) throw new Error(`unknown BENCH_TARGETS entry: ${t} (known: ${known.join(', ')})`)
  return asked as T[]
}

/** A comma-separated setting (BENCH_DIALECTS, BENCH_SINKS, …) checked against what the benchmark knows; `none`: empty. */
export function listFromEnv<T extends string>(name: string, known: readonly T[], fallback: readonly T[]): T[] {
  const raw = process.env[name]
  if (raw?.trim() === 'none') return []
  const asked = raw ? raw.split(',').map((t) => t.trim()).filter(Boolean) : [...fallback]
  for (const t of asked) if (!known.includes(t as T)) throw new Error(`unknown ${name} entry: ${t} (known: ${known.join(', ')}, or none)`)
  return asked as T[]
}

/** `digits` decimals at most. */
export function fmt(n: number, digits: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits })
}

export function machine() {
  return { node: process.version, platform: `${process.platform} ${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model }
}

/** Writes `bench/results/<name>-<date>.json` and returns its path. */
export function writeResults(name: string, out: { date: string } & Record<string, unknown>): string {
  mkdirSync(RESULTS_DIR, { recursive: true })
  const file = join(RESULTS_DIR, `${name}-${out.date.replace(/[:.]/g, '-')}.json`)
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`)
  return file
}

/** The goals of a benchmark, met or missed, and the machine it ran on. */
export function printGoals(goals: readonly { met: boolean; goal: string; value: string }[], environment: ReturnType<typeof machine>, resultsFile: string): void {
  if (goals.length > 0) console.log('')
  for (const g of goals) console.log(`${g.met ? 'MET   ' : 'MISSED'} ${g.goal} (measured ${g.value})`)
  console.log(`\n${environment.cpus} CPUs (${environment.cpuModel}), node ${process.version}; results written to ${resultsFile}`)
}
