// What every CLI command needs: the merged config and, for commands that touch data, a migrated database.
import type { Command } from 'commander'
import pino from 'pino'
import { loadConfig } from '../config/load.js'
import type { Config } from '../config/schema.js'
import { openDeps } from '../main.js'
import { migrateToLatest } from '../storage/migrate.js'
import type { Deps } from '../services/types.js'

export function configFrom(command: Command, overrides: Partial<Config> = {}): Readonly<Config> {
  const file = command.optsWithGlobals<{ config?: string }>().config
  return loadConfig({ file, overrides })
}

/** Runs `work` with migrated storage and closes it afterwards; CLI commands log only warnings, to stderr. */
export async function withDeps<T>(command: Command, work: (deps: Deps) => Promise<T>): Promise<T> {
  const config = configFrom(command)
  const log = pino({ level: 'warn' }, pino.destination(2))
  const { deps, storage } = openDeps(config, log)
  try {
    await migrateToLatest(storage.db as never)
    return await work(deps)
  } finally {
    await storage.close()
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`)
}

export function parseId(text: string): number {
  const id = Number(text)
  if (!Number.isSafeInteger(id) || id < 1) throw new Error(`not an id: ${text}`)
  return id
}
