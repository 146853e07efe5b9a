// `tidings outbox --account ID`: the emails the service sent or captured for an account (JSON).
import type { Command } from 'commander'
import { listOutbox } from '../../services/outbox.js'
import { parseId, printJson, withDeps } from '../context.js'

export function registerOutboxCommand(program: Command): void {
  program
    .command('outbox')
    .description('Emails sent or captured for an account, oldest first (JSON)')
    .requiredOption('--account <id>', 'account id')
    .option('--limit <n>', 'at most this many', '100')
    .option('--offset <n>', 'skip this many', '0')
    .action((options: { account: string; limit: string; offset: string }, command: Command) =>
      withDeps(command, async (deps) =>
        printJson(await listOutbox(deps.db, parseId(options.account), { limit: parseId(options.limit), offset: Number(options.offset) || 0 })),
      ),
    )
}
