// The `tidings` binary for tests that run it as separate processes: the built one (bin/tidings.js over dist/), as an
// operator runs it. Started through tsx instead (its loader hooks handle each of the ~900 modules), a start took
// 2.1 s of CPU against 1.0 s built (`tidings accounts list`, 2-core machine), and the suite starts ~150 of them: its
// 20 files that do took 450 s of CPU, 265 s built. test/run.ts brings dist/ up to date before any test
// runs (test/helpers/build.ts), so no test runs an old build; a file run on its own without test/run.ts needs
// `npm run build` first.
import { existsSync } from 'node:fs'

/** Arguments to `process.execPath` that run `tidings`: spawn(process.execPath, [...CLI, 'worker']). */
export const CLI = ['bin/tidings.js']

if (!existsSync('dist/cli/index.js')) throw new Error('dist/ is missing: run tests through test/run.ts (npm test), or `npm run build` first')
