#!/usr/bin/env node
// The `tidings` command line: serve, worker, migrate, status, accounts, config, import, contacts, outbox, campaigns, sms, viber.
import { Command } from 'commander'
import { registerServeCommands } from './commands/serve.js'
import { registerStatusCommand } from './commands/status.js'
import { registerAccountCommands } from './commands/accounts.js'
import { registerConfigCommand } from './commands/config.js'
import { registerImportCommand } from './commands/import.js'
import { registerContactCommands } from './commands/contacts.js'
import { registerOutboxCommand } from './commands/outbox.js'
import { registerCampaignCommands } from './commands/campaigns.js'
import { registerSmsCommands } from './commands/sms.js'
import { registerViberCommands } from './commands/viber.js'
import { releaseYoungGeneration } from '../lib/young-generation.js'

const program = new Command('tidings')
  .description('Self-hosted bulk email, SMS and Viber messaging with a SendPulse-compatible API')
  .option('-c, --config <file>', 'JSON config file (also TIDINGS_CONFIG)')
  .showHelpAfterError()
  // serve and worker release it once started (main.ts); every other command now, before its work.
  .hook('preAction', (_program, command) => {
    if (command.name() !== 'serve' && command.name() !== 'worker') releaseYoungGeneration()
  })

registerServeCommands(program)
registerStatusCommand(program)
registerAccountCommands(program)
registerConfigCommand(program)
registerImportCommand(program)
registerContactCommands(program)
registerOutboxCommand(program)
registerCampaignCommands(program)
registerSmsCommands(program)
registerViberCommands(program)

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`tidings: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exitCode = 1
})
