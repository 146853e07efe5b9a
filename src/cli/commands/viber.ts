// `tidings viber senders …` and `tidings viber templates …`: the operator registers Viber sender names and
// system-message templates for accounts and moderates them. Campaigns may use only verified sender names, and a
// system message (message_type 3) must equal an approved template (API.md 7).
import type { Command } from 'commander'
import * as senders from '../../services/viber/senders.js'
import * as templates from '../../services/viber/templates.js'
import { toWireDate } from '../../lib/wire-date.js'
import { parseId, printJson, withDeps } from '../context.js'

interface SenderOptions {
  account: string
  serviceType?: string
  webSite?: string
  description?: string
  country?: string
  trafficType?: string
}

function toListedSender(s: senders.ViberSender) {
  return {
    id: s.id,
    account: s.accountId,
    name: s.name,
    status: s.status,
    service_type: s.serviceType,
    web_site: s.webSite,
    description: s.description,
    country: s.country,
    traffic_type: s.trafficType,
    admin_comment: s.adminComment,
    created: toWireDate(s.createdAt),
  }
}

function registerSenderCommands(viber: Command): void {
  const group = viber.command('senders').description('Viber sender names of accounts')

  group
    .command('add')
    .description('Register sender name NAME (1–100 characters) for an account, in moderation; prints {"id": N}')
    .requiredOption('--account <id>', 'account id')
    .option('--service-type <type>', 'the kind of service the name stands for')
    .option('--web-site <url>', "the sender's web site")
    .option('--description <text>', 'what the sender sends')
    .option('--country <code>', 'two-letter country code (ISO 3166), e.g. UA')
    .option('--traffic-type <type>', 'e.g. promo or transactional')
    .argument('<name>', 'sender name')
    .allowExcessArguments(false)
    .action((name: string, options: SenderOptions, command: Command) =>
      withDeps(command, async (deps) => {
        const { account, ...profile } = options
        printJson({ id: await senders.registerViberSender(deps, parseId(account), { name, ...profile }) })
      }),
    )

  for (const decision of ['verify', 'block'] as const) {
    group
      .command(decision)
      .description(decision === 'verify' ? 'Verify sender name ID: campaigns may use it' : 'Block sender name ID: campaigns naming it are refused')
      .argument('<id>', 'sender id (from add or list)')
      .option('--comment <text>', 'shown to the account as admin_comment')
      .allowExcessArguments(false)
      .action((id: string, options: { comment?: string }, command: Command) =>
        withDeps(command, async (deps) => printJson(toListedSender(await senders.moderateViberSender(deps, parseId(id), decision, options.comment)))),
      )
  }

  group
    .command('list')
    .description('Sender names of every account, or of one, oldest first (JSON)')
    .option('--account <id>', 'only this account')
    .action((options: { account?: string }, command: Command) =>
      withDeps(command, async (deps) => printJson((await senders.listViberSenders(deps, options.account === undefined ? undefined : parseId(options.account))).map(toListedSender))),
    )
}

function registerTemplateCommands(viber: Command): void {
  const group = viber.command('templates').description('Texts of system Viber messages (message_type 3) of accounts')
  const toListed = (t: templates.ViberTemplate) => ({ id: t.id, account: t.accountId, status: t.status, text: t.text, created: toWireDate(t.createdAt) })

  group
    .command('add')
    .description('Register template TEXT (1–1000 characters) for an account, in moderation; prints {"id": N}')
    .requiredOption('--account <id>', 'account id')
    .argument('<text>', 'the exact text a system message must have')
    .allowExcessArguments(false)
    .action((text: string, options: { account: string }, command: Command) =>
      withDeps(command, async (deps) => printJson({ id: await templates.registerViberTemplate(deps, parseId(options.account), text) })),
    )

  group
    .command('approve')
    .description('Approve template ID: system messages of its text may be sent')
    .argument('<id>', 'template id (from add or list)')
    .allowExcessArguments(false)
    .action((id: string, _options: unknown, command: Command) =>
      withDeps(command, async (deps) => {
        await templates.approveViberTemplate(deps, parseId(id))
        printJson({ id: parseId(id), status: templates.VIBER_TEMPLATE_STATUS.approved })
      }),
    )

  group
    .command('list')
    .description('Templates of every account, or of one, oldest first (JSON)')
    .option('--account <id>', 'only this account')
    .action((options: { account?: string }, command: Command) =>
      withDeps(command, async (deps) => printJson((await templates.listViberTemplates(deps, options.account === undefined ? undefined : parseId(options.account))).map(toListed))),
    )
}

export function registerViberCommands(program: Command): void {
  const viber = program.command('viber').description('Viber settings the operator decides')
  registerSenderCommands(viber)
  registerTemplateCommands(viber)
}
