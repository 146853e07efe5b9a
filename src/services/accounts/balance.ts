// The account balance (API.md 4.8): the sum of the account's ledger entries (credits, write-offs; nothing
// else changes it), in the account currency or converted with the `currencyRates` setting, and the
// detailed form whose email tariff is the account's plan.
import * as accountsRepo from '../../storage/repos/accounts.js'
import { convertMicros, parseCurrencyRates, type CurrencyRates } from '../../lib/currency-rates.js'
import * as accounts from './accounts.js'
import { AppError } from '../errors.js'
import type { Deps } from '../types.js'

export interface Balance {
  currency: string
  micros: number
}

export interface BalanceDetail {
  currency: string
  mainMicros: number
  /** Tidings has no bonus balance: always 0. */
  bonusMicros: number
  plan: string
  emailsLeft: number
  maxSubscribers: number
  currentSubscribers: number
}

/** `emails_left` when emails cost nothing: the largest 32-bit integer, which every client can decode. */
const UNLIMITED_EMAILS = 2_147_483_647

/** The setting parsed once per configuration object (the configuration is frozen). */
const ratesByConfig = new WeakMap<object, CurrencyRates>()

function currencyRates(deps: Deps): CurrencyRates {
  let rates = ratesByConfig.get(deps.config)
  if (!rates) {
    rates = parseCurrencyRates(deps.config.currencyRates)
    ratesByConfig.set(deps.config, rates)
  }
  return rates
}

/** The balance in the account currency, or in `currency` (any case), exact to the micro-unit. */
export async function getBalance(deps: Deps, accountId: number, currency?: string): Promise<Balance> {
  const target = currency?.toUpperCase()
  if (target !== undefined && !/^[A-Z]{3}$/.test(target)) {
    throw new AppError('invalid', `Argument currency must be a 3-letter currency code such as USD, got "${currency}"`)
  }
  const account = await accounts.getAccount(deps, accountId)
  const micros = await accountsRepo.sumBalanceMicros(deps.db, accountId)
  if (target === undefined || target === account.currency) return { currency: account.currency, micros }
  const rates = currencyRates(deps)
  const to = rates.get(target)
  if (!to) throw new AppError('invalid', `Currency ${target} is not supported; supported currencies: ${[...rates.keys()].join(', ')}`)
  const from = rates.get(account.currency)
  if (!from) throw new AppError('invalid', `The balance cannot be converted from ${account.currency}: no rate is configured for it`)
  return { currency: target, micros: convertMicros(micros, from, to) }
}

/** The balance with the email tariff: what the balance pays for and the plan's subscriber limit. */
export async function getBalanceDetail(deps: Deps, accountId: number): Promise<BalanceDetail> {
  const account = await accounts.getAccount(deps, accountId)
  const micros = await accountsRepo.sumBalanceMicros(deps.db, accountId)
  const priceMicros = Math.round(deps.config.emailPrice * 1e6)
  return {
    currency: account.currency,
    mainMicros: micros,
    bonusMicros: 0,
    plan: account.plan,
    emailsLeft: priceMicros > 0 ? Math.floor(Math.max(micros, 0) / priceMicros) : UNLIMITED_EMAILS,
    maxSubscribers: accounts.maxSubscribersOf(account.plan),
    currentSubscribers: await accountsRepo.countSubscribers(deps.db, accountId),
  }
}
