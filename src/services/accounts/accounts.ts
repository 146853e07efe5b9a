// Accounts (tenants): creation with client credentials shown once, listing, credits, API keys.
import { randomUUID } from 'node:crypto'
import * as accountsRepo from '../../storage/repos/accounts.js'
import * as credentialsRepo from '../../storage/repos/credentials.js'
import { digestToken, hashSecret, randomSecret } from '../../lib/secrets.js'
import { parseMicros } from '../../lib/money.js'
import { AppError } from '../errors.js'
import type { Deps } from '../types.js'

export const PLANS = ['free', 'standard', 'pro'] as const
export type Plan = (typeof PLANS)[number]

/**
 * Subscribers (distinct addresses across the account's lists) each plan allows, shown as
 * `maximum_subscribers` in GET /user/balance/detail. Tidings' own choice (SendPulse's tiers are priced
 * per subscriber count): a trial size, a mid-size sender, and effectively unlimited.
 */
export const PLAN_MAX_SUBSCRIBERS: Readonly<Record<Plan, number>> = { free: 500, standard: 100_000, pro: 10_000_000 }

/** The subscriber limit of an account's plan (0 for a plan this version does not know). */
export function maxSubscribersOf(plan: string): number {
  return PLANS.includes(plan as Plan) ? PLAN_MAX_SUBSCRIBERS[plan as Plan] : 0
}

export interface NewAccountInput {
  name: string
  balance?: string
  currency?: string
  plan?: string
}

export interface CreatedAccount {
  id: number
  client_id: string
  client_secret: string
}

/** Creates an account and returns its credentials; the secret is stored hashed and never shown again. */
export async function createAccount(deps: Deps, input: NewAccountInput): Promise<CreatedAccount> {
  const name = input.name.trim()
  if (!name) throw new AppError('invalid', 'account name must not be empty')
  const currency = (input.currency ?? deps.config.defaultCurrency).toUpperCase()
  if (!/^[A-Z]{3}$/.test(currency)) throw new AppError('invalid', `currency must be a 3-letter code, got "${input.currency}"`)
  const plan = input.plan ?? 'pro'
  if (!PLANS.includes(plan as Plan)) throw new AppError('invalid', `plan must be one of ${PLANS.join(', ')}`)
  const balanceMicros = parseAmount(input.balance ?? '0')
  if (balanceMicros < 0) throw new AppError('invalid', 'initial balance must not be negative')

  const clientId = randomUUID().replaceAll('-', '')
  const clientSecret = randomSecret(24)
  const clientSecretHash = await hashSecret(clientSecret)
  const now = deps.now()
  const id = await deps.db.transaction().execute(async (tx) => {
    const accountId = await accountsRepo.createAccount(tx, { name, clientId, clientSecretHash, currency, plan, now })
    if (balanceMicros > 0) {
      await accountsRepo.recordLedgerEntry(tx, { accountId, amountMicros: balanceMicros, kind: 'credit', note: 'initial balance', now })
    }
    return accountId
  })
  return { id, client_id: clientId, client_secret: clientSecret }
}

export async function listAccounts(deps: Deps) {
  const accounts = await accountsRepo.listAccounts(deps.db)
  return Promise.all(
    accounts.map(async (a) => ({
      id: a.id,
      name: a.name,
      client_id: a.clientId,
      currency: a.currency,
      plan: a.plan,
      status: statusOf(a),
      balance: (await accountsRepo.sumBalanceMicros(deps.db, a.id)) / 1e6,
    })),
  )
}

/** `active`, `disabled` (`tidings accounts disable`) or `deleted`. */
export function statusOf(account: accountsRepo.AccountRow): 'active' | 'disabled' | 'deleted' {
  if (account.deletedAt !== null) return 'deleted'
  return account.disabledAt === null ? 'active' : 'disabled'
}

/** Adds a credit (or, with a negative amount, a correction) to the account's ledger; returns the new balance. */
export async function creditAccount(deps: Deps, accountId: number, amount: string): Promise<number> {
  const micros = parseAmount(amount)
  await getAccount(deps, accountId)
  await accountsRepo.recordLedgerEntry(deps.db, { accountId, amountMicros: micros, kind: 'credit', note: 'operator credit', now: deps.now() })
  return (await accountsRepo.sumBalanceMicros(deps.db, accountId)) / 1e6
}

export async function getAccount(deps: Deps, accountId: number): Promise<accountsRepo.AccountRow> {
  const account = await accountsRepo.findAccountById(deps.db, accountId)
  if (!account) throw new AppError('not_found', `account ${accountId} not found`)
  return account
}

/** Creates a long-lived API key (PHP 3.x SDK sends it as a bearer token); shown once, stored as a digest. */
export async function createApiKey(deps: Deps, accountId: number, name: string): Promise<{ id: number; api_key: string }> {
  if ((await getAccount(deps, accountId)).deletedAt !== null) throw new AppError('not_found', `account ${accountId} not found`)
  const apiKey = `tdk_${randomSecret(32)}`
  const id = await credentialsRepo.createApiKey(deps.db, { accountId, name, keyHash: digestToken(apiKey), now: deps.now() })
  return { id, api_key: apiKey }
}

export async function listApiKeys(deps: Deps, accountId: number) {
  await getAccount(deps, accountId)
  return credentialsRepo.listApiKeys(deps.db, accountId)
}

/** Every process forgets the keys it remembers within a second (services/accounts/token-cache.ts). */
export async function revokeApiKey(deps: Deps, accountId: number, keyId: number): Promise<void> {
  const now = deps.now()
  await deps.db.transaction().execute(async (tx) => {
    if (!(await credentialsRepo.revokeApiKey(tx, accountId, keyId, now))) {
      throw new AppError('not_found', `active API key ${keyId} of account ${accountId} not found`)
    }
    await credentialsRepo.recordRevocation(tx, now)
  })
}

function parseAmount(text: string): number {
  const micros = parseMicros(text)
  if (micros === undefined) throw new AppError('invalid', `amount must be a decimal number with at most 6 decimals, got "${text}"`)
  return micros
}

/** `tidings accounts amp ID on|off`: whether the account may send AMP bodies (API.md 4.2.1 `body_amp`). */
export async function allowAmp(deps: Deps, id: number, allowed: boolean): Promise<void> {
  if (!(await accountsRepo.setAmpAllowed(deps.db, id, allowed, deps.now()))) throw new AppError('not_found', `Account ${id} not found`)
}
