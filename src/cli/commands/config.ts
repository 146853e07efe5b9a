// `tidings config`: the effective configuration, secrets hidden.
import type { Command } from 'commander'
import { redactConfig } from '../../config/redact.js'
import { configFrom, printJson } from '../context.js'

export function registerConfigCommand(program: Command): void {
  program
    .command('config')
    .description('Print the effective configuration (defaults, file, environment) with secrets hidden')
    .action((_options: unknown, command: Command) => printJson(redactConfig(configFrom(command))))
}
