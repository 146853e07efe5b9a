// `tidings serve` (the API, and the dispatcher unless --no-dispatch), `tidings worker` (the dispatcher alone) and `tidings migrate`.
import type { Command } from 'commander'
import { createLogger, serve, stopOnSignals, work } from '../../main.js'
import { openDatabase } from '../../storage/db.js'
import { migrateToLatest } from '../../storage/migrate.js'
import { configFrom, printJson } from '../context.js'

export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('Run the API (migrates the database first)')
    .option('-p, --port <port>', 'port to listen on (PORT)', Number)
    .option('-H, --host <host>', 'address to listen on (HOST)')
    .option('--no-dispatch', 'run no background jobs in this process (other processes run them)')
    .action(async (options: { port?: number; host?: string; dispatch: boolean }, command: Command) => {
      const config = configFrom(command, { port: options.port, host: options.host })
      const log = createLogger(config)
      const server = await serve(config, log, { dispatch: options.dispatch })
      stopOnSignals(server, log)
    })

  program
    .command('worker')
    .description('Run queued jobs and send email without serving the API (next to `serve --no-dispatch`)')
    .action(async (_options: unknown, command: Command) => {
      const config = configFrom(command)
      const log = createLogger(config)
      stopOnSignals(await work(config, log), log)
    })

  program
    .command('migrate')
    .description('Apply pending database migrations')
    .action(async (_options: unknown, command: Command) => {
      const storage = openDatabase(configFrom(command).databaseUrl)
      try {
        printJson({ dialect: storage.dialect, applied: await migrateToLatest(storage.db as never) })
      } finally {
        await storage.close()
      }
    })
}
