// `tidings status`: the live dispatching processes and each queue's depth and oldest due item (JSON), for an
// operator or a monitoring script. It only reads: a database behind this release is reported, not migrated
// (a status check run by a newer binary during an upgrade must not change the schema under running workers).
import type { Command } from 'commander'
import { openDatabase } from '../../storage/db.js'
import { pendingMigrations } from '../../storage/migrate.js'
import { readStatus } from '../../services/operations/status.js'
import { configFrom, printJson } from '../context.js'

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('Live workers and, for each queue, the items due and the age of the oldest in seconds (JSON)')
    .action(async (_options: unknown, command: Command) => {
      const config = configFrom(command)
      const status = await withDatabase(config.databaseUrl, { connectSeconds: config.dbConnectTimeoutSeconds, statementSeconds: config.dbStatementTimeoutSeconds })
      printJson({
        workers: status.workers.map((w) => ({
          id: w.id,
          role: w.role,
          hostname: w.hostname,
          pid: w.pid,
          version: w.version,
          startedAt: new Date(w.startedAt).toISOString(),
          heartbeatAt: new Date(w.heartbeatAt).toISOString(),
        })),
        queues: status.queues,
      })
    })
}

async function withDatabase(url: string, timeouts: { connectSeconds: number; statementSeconds: number }) {
  let storage: ReturnType<typeof openDatabase> | undefined
  try {
    storage = openDatabase(url, timeouts)
    const pending = await pendingMigrations(storage.db as never)
    if (pending.length > 0) throw new Error(`the database is not migrated to this release (pending: ${pending.join(', ')}); run \`tidings migrate\``)
    return await readStatus({ db: storage.db, now: Date.now })
  } catch (err) {
    throw new Error(`cannot read the status: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
  } finally {
    await storage?.close()
  }
}
