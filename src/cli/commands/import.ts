// `tidings import`: loads a list's contacts from a CSV file. Prints a JSON summary on stdout, writes the rows
// it could not store to a rejects file, and shows a progress bar only when stderr is a terminal.
import { createReadStream, createWriteStream, statSync, type WriteStream } from 'node:fs'
import { once } from 'node:events'
import { finished } from 'node:stream/promises'
import type { Command } from 'commander'
import cliProgress from 'cli-progress'
import { importContacts, type RejectedRow } from '../../services/audience/contact-import.js'
import { parseId, printJson, withDeps } from '../context.js'

interface ImportOptions {
  account: string
  list: string
  rejects?: string
}

export function registerImportCommand(program: Command): void {
  program
    .command('import')
    .description('Import contacts into a list from a CSV file: a header row with an email column; other columns are variables (a Phone column also adds the numbers to the list\'s SMS numbers; a Phone column without an email column imports numbers alone)')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--list <id>', 'id of a mailing list of that account')
    .option('--rejects <file>', 'where to write the rows not imported, with the reason (default: FILE.rejects.csv beside FILE)')
    .argument('<file>', 'CSV file (UTF-8, RFC 4180)')
    .allowExcessArguments(false)
    .action((file: string, options: ImportOptions, command: Command) => {
      const accountId = parseId(options.account)
      const bookId = parseId(options.list)
      const size = fileSize(file)
      const rejectsPath = options.rejects ?? defaultRejectsPath(file)
      return withDeps(command, async (deps) => {
        const started = performance.now()
        const csv = createReadStream(file)
        const bar = process.stderr.isTTY ? startBar(size) : undefined
        const rejects = new RejectsFile(rejectsPath)
        try {
          const summary = await importContacts(deps, {
            accountId,
            bookId,
            csv,
            onHeader: (header) => rejects.setHeader(header),
            onRejected: (rows) => rejects.write(rows),
            onProgress: (counts) => bar?.update(csv.bytesRead, { rows: counts.rows }),
          })
          bar?.update(size, { rows: summary.rows })
          bar?.stop() // clears the bar before the summary is printed
          printJson({ ...summary, seconds: round((performance.now() - started) / 1000), rejects_file: await rejects.close() })
        } finally {
          if (bar?.isActive) bar.stop()
          csv.destroy()
          await rejects.close()
        }
      })
    })
}

/** The file's size, or an error a person understands (the file is checked before the database is opened). */
function fileSize(file: string): number {
  let stats
  try {
    stats = statSync(file)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new Error(code === 'ENOENT' ? `${file}: no such file` : `${file}: cannot be read (${code})`)
  }
  if (!stats.isFile()) throw new Error(`${file}: not a file`)
  return stats.size
}

/** `contacts.csv` → `contacts.rejects.csv`; any other name gets `.rejects.csv` appended. */
function defaultRejectsPath(file: string): string {
  return `${file.replace(/\.csv$/i, '')}.rejects.csv`
}

function startBar(total: number): cliProgress.SingleBar {
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: '{bar} {percentage}% | {rows} rows | ETA {eta_formatted}', hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  )
  bar.start(total, 0, { rows: 0 })
  return bar
}

/**
 * The rejects CSV: `line` (where the row starts in the input), `reason`, then the row as it was. The two
 * come first so that a row with more fields than the header cannot push them out of their columns.
 * Created on the first reject only, so a clean import leaves no file behind.
 */
class RejectsFile {
  private header: string[] = []
  private out: WriteStream | undefined
  private closed = false

  constructor(private readonly path: string) {}

  setHeader(header: string[]): void {
    this.header = header
  }

  async write(rows: RejectedRow[]): Promise<void> {
    if (!this.out) {
      this.out = createWriteStream(this.path)
      this.out.write(csvLine(['line', 'reason', ...this.header]))
    }
    for (const row of rows) {
      if (!this.out.write(csvLine([String(row.line), row.reason, ...row.fields]))) {
        await once(this.out, 'drain')
      }
    }
  }

  /** Flushes the file; returns its path, or null when nothing was rejected. */
  async close(): Promise<string | null> {
    if (this.out && !this.closed) {
      this.closed = true
      this.out.end()
      await finished(this.out)
    }
    return this.out ? this.path : null
  }
}

/** One CSV record (RFC 4180): fields holding a comma, a quote or a line break are quoted, quotes doubled. */
function csvLine(fields: string[]): string {
  return `${fields.map((f) => (/[",\r\n]/.test(f) ? `"${f.replaceAll('"', '""')}"` : f)).join(',')}\r\n`
}

function round(seconds: number): number {
  return Math.round(seconds * 100) / 100
}
