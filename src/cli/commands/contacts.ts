// `tidings contacts …`: operator actions on contacts that the API does not offer.
import type { Command } from 'commander'
import { activateContacts } from '../../services/audience/contact-activation.js'
import { parseId, printJson, withDeps } from '../context.js'

export function registerContactCommands(program: Command): void {
  const group = program.command('contacts').description('Operator actions on contacts')

  group
    .command('activate')
    .description('Make New contacts and list numbers (status 0, added under TIDINGS_CONTACT_ACTIVATION=manual) Active; prints {activated: N, activated_numbers: M}')
    .requiredOption('--account <id>', 'account id')
    .option('--list <id>', 'only this list of the account (default: every list)')
    .argument('[emails...]', 'only these addresses (default: every New contact)')
    .action((emails: string[], options: { account: string; list?: string }, command: Command) => {
      const accountId = parseId(options.account)
      const bookId = options.list === undefined ? undefined : parseId(options.list)
      return withDeps(command, async (deps) => {
        const activated = await activateContacts(deps, { accountId, bookId, emails })
        printJson({ activated: activated.contacts, activated_numbers: activated.numbers })
      })
    })
}
