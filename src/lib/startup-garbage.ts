// A compacting garbage collection once a process serves. Loading ~900 modules and building ~150 routes leaves
// ~10 MiB of garbage promoted into V8's old space (an idle `tidings serve`: 33.5 MiB used of 34, 23.5 live), and
// an idle process allocates too little to collect it: it stays resident until V8's memory reducer compacts, 8–10 s
// after start on a quiet machine, not within 30 s on a loaded one (99–101 MiB of RSS). A plain full collection
// frees the garbage but keeps the pages that still hold survivors. Two with --optimize-for-size, the first freeing,
// the second moving the survivors out of the pages left sparse, bring the space to 24–25 MiB at once, for ~40 ms:
// idle RSS 95–97 MiB from 2 s instead of 100–105 (docs/benchmarks.md, "Memory").
// Node exposes gc() only with --expose-gc, which `node bin/tidings.js` (and a process manager's command line) do
// not pass; set at run time, the flag exposes gc() in contexts created afterwards, so one is borrowed from a new vm
// context and the flags are set back at once: gc stays off this process's globalThis, later collections are V8's.
import v8 from 'node:v8'
import vm from 'node:vm'

/** Frees and compacts the start-up garbage; skipped (never thrown) where the runtime refuses a flag. */
export function collectStartupGarbage(): void {
  // Flags the operator gave node (NODE_OPTIONS or its command line) are left as they were.
  const exposes = !givenToNode('expose-gc')
  const optimizes = !givenToNode('optimize-for-size')
  try {
    if (exposes) v8.setFlagsFromString('--expose-gc')
    const gc: unknown = vm.runInNewContext('gc')
    if (typeof gc !== 'function') return
    if (optimizes) v8.setFlagsFromString('--optimize-for-size')
    gc()
    gc()
  } catch {
    // A runtime without these flags or vm contexts keeps its start-up garbage: only memory is at stake.
  } finally {
    if (optimizes) v8.setFlagsFromString('--no-optimize-for-size')
    if (exposes) v8.setFlagsFromString('--no-expose-gc')
  }
}

function givenToNode(flag: string): boolean {
  const options = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]
  return options.some((option) => option.replace(/_/g, '-') === `--${flag}`)
}
