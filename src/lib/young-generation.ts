// V8's young generation, held small while a process starts. Loading ~900 modules allocates fast with most of it
// surviving, so V8 grows the young generation to its 2 × 16 MB maximum, and an idle `tidings serve` kept ~21 MB
// of it resident and empty until V8's memory reducer gave it back some 30 s later (docs/benchmarks.md, issue 19).
// With the growth held during start-up the young generation stays at 2 MB; released once the process serves, it
// grows again as soon as a workload needs it (sending, imports), so throughput is the same.
import v8 from 'node:v8'

// V8's default semi_space_growth_factor (Node 20–24): each growth doubles the young generation.
const DEFAULT_GROWTH_FACTOR = 2
let held = false

/** Called first thing by the `tidings` binary, before the rest of the program is loaded. */
export function holdYoungGeneration(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=1')
  held = true
}

/** Lets the young generation grow again; a no-op unless held (tests, embedders). */
export function releaseYoungGeneration(): void {
  if (!held) return
  v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`)
  held = false
}
