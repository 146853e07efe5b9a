// `tidings outbox --account ID [--campaign ID]`: the emails the service sent or captured for an account (JSON),
// in full: unlike GET /outbox it shows activation codes and confirmation links, for the operator to pass on
// while no relay is configured.
import type { Command } from 'commander'
import { listOutboxInFull } from '../../services/email/outbox.js'
import { listCampaignOutbox } from '../../services/email/campaign-outbox.js'
import { parseId, printJson, withDeps } from '../context.js'

export function registerOutboxCommand(program: Command): void {
  program
    .command('outbox')
    .description('Emails sent or captured for an account, or the messages of one of its campaigns, oldest first (JSON)')
    .requiredOption('--account <id>', 'account id')
    .option('--limit <n>', 'at most this many', '100')
    .option('--offset <n>', 'skip this many', '0')
    .option('--campaign <id>', "the campaign's messages instead of the service emails")
    .action((options: { account: string; limit: string; offset: string; campaign?: string }, command: Command) =>
      withDeps(command, async (deps) => {
        const accountId = parseId(options.account)
        const page = { limit: parseId(options.limit), offset: Number(options.offset) || 0 }
        printJson(options.campaign === undefined ? await listOutboxInFull(deps.db, accountId, page) : await listCampaignOutbox(deps, accountId, parseId(options.campaign), page))
      }),
    )
}
