// `tidings sms senders …`: the operator registers SMS sender IDs for accounts and moderates them
// (API.md 3.4: 0 in moderation, 1 active, 2 rejected); campaigns may use only active ones.
import type { Command } from 'commander'
import * as senders from '../../services/sms/senders.js'
import { toWireDate } from '../../lib/wire-date.js'
import { parseId, printJson, withDeps } from '../context.js'

export function registerSmsCommands(program: Command): void {
  const group = program.command('sms').description('SMS settings the operator decides').command('senders').description('SMS sender IDs of accounts')

  group
    .command('add')
    .description('Register sender ID NAME (up to 11 letters and digits, or a number) for an account, in moderation; prints {"id": N}')
    .requiredOption('--account <id>', 'account id')
    .argument('<name>', 'sender ID')
    .allowExcessArguments(false)
    .action((name: string, options: { account: string }, command: Command) =>
      withDeps(command, async (deps) => printJson({ id: await senders.registerSmsSender(deps, parseId(options.account), name) })),
    )

  for (const [decision, status] of [['approve', senders.SMS_SENDER_STATUS.active], ['reject', senders.SMS_SENDER_STATUS.rejected]] as const) {
    group
      .command(decision)
      .description(decision === 'approve' ? 'Make sender ID ID active: campaigns may use it' : 'Reject sender ID ID: campaigns naming it are refused')
      .argument('<id>', 'sender id (from add or list)')
      .allowExcessArguments(false)
      .action((id: string, _options: unknown, command: Command) =>
        withDeps(command, async (deps) => {
          await senders.moderateSmsSender(deps, parseId(id), decision)
          printJson({ id: parseId(id), status, status_explain: senders.senderStatusExplain(status) })
        }),
      )
  }

  group
    .command('list')
    .description('Sender IDs of every account, or of one, oldest first (JSON)')
    .option('--account <id>', 'only this account')
    .action((options: { account?: string }, command: Command) =>
      withDeps(command, async (deps) => {
        const listed = await senders.listSmsSenders(deps, options.account === undefined ? undefined : parseId(options.account))
        printJson(
          listed.map((s) => ({ id: s.id, account: s.accountId, sender: s.name, status: s.status, status_explain: senders.senderStatusExplain(s.status), created: toWireDate(s.createdAt) })),
        )
      }),
    )
}
