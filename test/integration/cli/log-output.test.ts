// The log of `serve` and `worker` (createLogger) gathers lines into larger writes: none is lost when the
// process dies of an uncaught error, and a line logged on an idle server still shows up without an exit.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import '../../helpers/cli.js'

/** Runs `body` after `log = createLogger(config)` in a process whose stdout is a pipe, as under a supervisor. */
function withLogger(body: string) {
  const script = `
    import { createLogger } from './dist/main.js'
    const log = createLogger({ logLevel: 'info' })
    ${body}
  `
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
  const lines: Record<string, unknown>[] = []
  const seen: (() => void)[] = []
  createInterface({ input: child.stdout! }).on('line', (text) => {
    lines.push(JSON.parse(text) as Record<string, unknown>)
    for (const resolve of seen.splice(0)) resolve()
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const line = async (msg: string) => {
    while (!lines.some((l) => l.msg === msg)) await new Promise<void>((resolve) => seen.push(resolve))
  }
  return { child, lines, exited, line }
}

describe('log output of serve and worker', () => {
  it('writes the lines logged before an uncaught error kills the process', async () => {
    const { lines, exited } = withLogger(`
      for (let i = 0; i < 3; i++) log.info({ i }, 'before the crash')
      setImmediate(() => { throw new Error('boom') })
    `)
    assert.notEqual(await exited, 0)
    assert.deepEqual(lines.filter((l) => l.msg === 'before the crash').map((l) => l.i), [0, 1, 2])
  })

  it('writes a line of an idle process without waiting for more lines or an exit', async () => {
    const { child, exited, line } = withLogger(`
      log.info('alone')
      setInterval(() => {}, 60_000)
    `)
    try {
      await line('alone')
    } finally {
      child.kill('SIGKILL')
      await exited
    }
  })
})
