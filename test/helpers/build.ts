// Brings dist/ up to date with src/ for the tests that start the built `tidings` (test/helpers/cli.ts). The build is
// incremental (tsconfig.build.json): with nothing changed it only compares the sources, ~5 s of CPU.
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'

export async function buildDist(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const child = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  if (code !== 0) throw new Error(`building dist/ failed (tsc exited ${code}): the CLI tests would run an old build`)
}
