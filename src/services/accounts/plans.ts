// Which tariff plan unlocks which feature. Plans are ordered (PLANS): a feature of one plan is in every
// plan above it.
import * as accountsRepo from '../../storage/repos/accounts.js'
import { PLANS, type Plan } from './accounts.js'
import { AppError } from '../errors.js'
import type { Deps } from '../types.js'

export type Feature = 'tags' | 'dynamicLists'

/** API.md 2.6 and 8: tags on the Pro plan and above, dynamic lists on any paid plan. */
const MINIMUM_PLAN: Record<Feature, Plan> = { tags: 'pro', dynamicLists: 'standard' }

/** Throws SendPulse's published tariff exception unless the account's plan includes the feature. */
export async function requirePlan(deps: Deps, accountId: number, feature: Feature): Promise<void> {
  const account = await accountsRepo.findAccountById(deps.db, accountId)
  // An unknown plan name ranks -1: below every plan.
  if (!account || PLANS.indexOf(account.plan as Plan) < PLANS.indexOf(MINIMUM_PLAN[feature])) {
    throw new AppError('forbidden', 'Access denied! Please change your tariff plan', { publishedCode: 3030303030 })
  }
}
