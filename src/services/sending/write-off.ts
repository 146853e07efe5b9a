// Paying for a campaign's messages through the ledger, the same for every channel: under the account's lock, so
// two campaigns created at once cannot spend the same money. What is never sent is given back (settlement.ts).
import type { Kysely } from 'kysely'
import * as accountsRepo from '../../storage/repos/accounts.js'
import * as campaignsRepo from '../../storage/repos/campaigns.js'
import type { Database } from '../../storage/tables.js'
import { formatMicros } from '../../lib/money.js'
import { AppError } from '../errors.js'

export interface CampaignCharge {
  accountId: number
  campaignId: number
  /** What the campaign was charged before this (0 for a new one). */
  chargedMicros: number
  micros: number
  currency: string
  /** Ledger note: `sms campaign 7`, `viber campaign 8` */
  note: string
  now: number
}

/** Writes off the whole price, or nothing: not enough money → 422 error_code 14 naming the price, nothing stored. */
export async function writeOffOrRefuse(tx: Kysely<Database>, charge: CampaignCharge & { recipients: number; unit: string }): Promise<void> {
  if (charge.micros === 0) return
  await accountsRepo.lockAccount(tx, charge.accountId)
  if ((await accountsRepo.sumBalanceMicros(tx, charge.accountId)) < charge.micros) {
    const price = `${formatMicros(charge.micros, 4)} ${charge.currency}`
    throw new AppError('invalid', `Not enough money on the balance: sending to ${charge.recipients} ${charge.unit} costs ${price}`, { publishedCode: 14 })
  }
  await record(tx, charge)
}

/** Pays for as many of `priced` (in order) as the balance allows; returns those paid for. */
export async function payWhatBalanceAllows<T extends { priceMicros: number }>(tx: Kysely<Database>, charge: Omit<CampaignCharge, 'micros'>, priced: readonly T[]): Promise<T[]> {
  await accountsRepo.lockAccount(tx, charge.accountId)
  let left = await accountsRepo.sumBalanceMicros(tx, charge.accountId)
  const paid: T[] = []
  for (const item of priced) {
    if (item.priceMicros > left) continue
    left -= item.priceMicros
    paid.push(item)
  }
  const micros = paid.reduce((sum, m) => sum + m.priceMicros, 0)
  if (micros > 0) await record(tx, { ...charge, micros })
  return paid
}

async function record(tx: Kysely<Database>, charge: CampaignCharge): Promise<void> {
  await accountsRepo.recordLedgerEntry(tx, { accountId: charge.accountId, amountMicros: -charge.micros, kind: 'write_off', note: charge.note, now: charge.now })
  await campaignsRepo.setChargedMicros(tx, charge.campaignId, charge.chargedMicros + charge.micros, charge.now)
}
