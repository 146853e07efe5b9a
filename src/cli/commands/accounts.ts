// `tidings accounts …`: tenants, their balance credits, their API keys and the end of their access.
import type { Command } from 'commander'
import * as accounts from '../../services/accounts/accounts.js'
import * as lifecycle from '../../services/accounts/account-lifecycle.js'
import { parseId, printJson, withDeps } from '../context.js'

export function registerAccountCommands(program: Command): void {
  const group = program.command('accounts').description('Manage accounts (tenants)')

  group
    .command('create')
    .description('Create an account; prints its client_id and client_secret (shown only once)')
    .requiredOption('--name <name>', 'account name')
    .option('--balance <amount>', 'initial balance', '0')
    .option('--currency <code>', 'account currency (TIDINGS_DEFAULT_CURRENCY)')
    .option('--plan <plan>', `plan: ${accounts.PLANS.join(', ')}`, 'pro')
    .action((options: accounts.NewAccountInput, command: Command) =>
      withDeps(command, async (deps) => printJson(await accounts.createAccount(deps, options))),
    )

  group
    .command('list')
    .description('List accounts with their balances')
    .action((_options: unknown, command: Command) => withDeps(command, async (deps) => printJson(await accounts.listAccounts(deps))))

  group
    .command('credit')
    .description('Add AMOUNT to the balance of account ID (a negative amount corrects it)')
    .argument('<id>', 'account id')
    .argument('<amount>', 'amount in the account currency')
    .allowExcessArguments(false)
    .action((id: string, amount: string, _options: unknown, command: Command) =>
      withDeps(command, async (deps) => printJson({ id: parseId(id), balance: await accounts.creditAccount(deps, parseId(id), amount) })),
    )

  group
    .command('amp')
    .description('Allow (on) or forbid (off) AMP email bodies (`body_amp`) for account ID')
    .argument('<id>', 'account id')
    .argument('<switch>', 'on or off')
    .action((id: string, toggle: string, _options: unknown, command: Command) => {
      if (toggle !== 'on' && toggle !== 'off') throw new Error(`amp takes on or off, not ${toggle}`)
      return withDeps(command, async (deps) => {
        await accounts.allowAmp(deps, parseId(id), toggle === 'on')
        printJson({ id: parseId(id), amp: toggle === 'on' })
      })
    })

  registerLifecycleCommands(group)

  const keys = group.command('api-keys').description('Long-lived API keys (sent as Bearer tokens)')
  keys
    .command('create')
    .argument('<id>', 'account id')
    .option('--name <name>', 'what the key is for', 'api key')
    .description('Create an API key; prints it once')
    .action((id: string, options: { name: string }, command: Command) =>
      withDeps(command, async (deps) => printJson(await accounts.createApiKey(deps, parseId(id), options.name))),
    )
  keys
    .command('list')
    .argument('<id>', 'account id')
    .action((id: string, _options: unknown, command: Command) =>
      withDeps(command, async (deps) => printJson(await accounts.listApiKeys(deps, parseId(id)))),
    )
  keys
    .command('revoke')
    .argument('<id>', 'account id')
    .argument('<keyId>', 'API key id')
    .action((id: string, keyId: string, _options: unknown, command: Command) =>
      withDeps(command, async (deps) => {
        await accounts.revokeApiKey(deps, parseId(id), parseId(keyId))
        printJson({ revoked: parseId(keyId) })
      }),
    )
}

/** disable, enable, rotate-secret, revoke-tokens, delete: each takes effect on every server within a second. */
function registerLifecycleCommands(group: Command): void {
  group
    .command('disable')
    .description('Refuse account ID its token calls, tokens and API keys until `enable`')
    .argument('<id>', 'account id')
    .action((id: string, _options: unknown, command: Command) =>
      withDeps(command, async (deps) => {
        printJson(endingReport(parseId(id), 'disabled', await lifecycle.disableAccount(deps, parseId(id))))
      }),
    )

  group
    .command('enable')
    .description('Let disabled account ID get tokens again (its API keys work again too)')
    .argument('<id>', 'account id')
    .action((id: string, _options: unknown, command: Command) =>
      withDeps(command, async (deps) => {
        await lifecycle.enableAccount(deps, parseId(id))
        printJson({ id: parseId(id), status: 'active' })
      }),
    )

  group
    .command('rotate-secret')
    .description('Give account ID a new client_secret and end its tokens; prints client_id and client_secret (shown only once)')
    .argument('<id>', 'account id')
    .action((id: string, _options: unknown, command: Command) =>
      withDeps(command, async (deps) => printJson(await lifecycle.rotateClientSecret(deps, parseId(id)))),
    )

  group
    .command('revoke-tokens')
    .description('End every access token of account ID; its client credentials and API keys keep working')
    .argument('<id>', 'account id')
    .action((id: string, _options: unknown, command: Command) =>
      withDeps(command, async (deps) => printJson({ id: parseId(id), revoked_tokens: await lifecycle.revokeTokens(deps, parseId(id)) })),
    )

  group
    .command('delete')
    .description('Disable account ID for good and revoke its API keys; its data is kept')
    .argument('<id>', 'account id')
    .option('--yes', 'confirm: a deleted account cannot be enabled again')
    .action((id: string, options: { yes?: boolean }, command: Command) => {
      if (!options.yes) throw new Error('delete cannot be undone: add --yes')
      return withDeps(command, async (deps) => {
        printJson(endingReport(parseId(id), 'deleted', await lifecycle.deleteAccount(deps, parseId(id))))
      })
    })
}

/** An account deleted before says so: running disable or delete again only canceled its campaigns still open. */
function endingReport(id: number, status: 'disabled' | 'deleted', ending: lifecycle.AccountEnding) {
  if (ending === 'ended') return { id, status }
  return { id, status: 'deleted', note: 'was already deleted; its campaigns that could still send are canceled' }
}
