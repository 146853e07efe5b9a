// `tidings campaigns …`: the operator's moderation of campaigns (TIDINGS_MODERATION=manual).
import type { Command } from 'commander'
import * as campaigns from '../../services/email/campaigns.js'
import { toWireDate } from '../../lib/wire-date.js'
import { parseId, printJson, withDeps } from '../context.js'

export function registerCampaignCommands(program: Command): void {
  const group = program.command('campaigns').description('Moderate email campaigns (TIDINGS_MODERATION=manual)')

  group
    .command('pending')
    .description('Campaigns waiting for moderation (status 1), oldest first')
    .action((_options: unknown, command: Command) =>
      withDeps(command, async (deps) => {
        const waiting = await campaigns.listAwaitingModeration(deps)
        printJson(waiting.map((c) => ({ id: c.id, account: c.accountId, name: c.name, subject: c.subject, sender: c.senderEmail, recipients: c.allEmailQty, created: toWireDate(c.createdAt) })))
      }),
    )

  group
    .command('approve')
    .description('Let campaign ID start sending (1 → 2)')
    .argument('<id>', 'campaign id')
    .action((id: string, _options: unknown, command: Command) =>
      withDeps(command, async (deps) => {
        await campaigns.approveCampaign(deps, parseId(id))
        printJson({ id: parseId(id), status: 2 })
      }),
    )

  group
    .command('reject')
    .description('Block campaign ID (1 → 5): nothing is sent and the balance is given back')
    .argument('<id>', 'campaign id')
    .action((id: string, _options: unknown, command: Command) =>
      withDeps(command, async (deps) => {
        await campaigns.rejectCampaign(deps, parseId(id))
        printJson({ id: parseId(id), status: 5 })
      }),
    )
}
