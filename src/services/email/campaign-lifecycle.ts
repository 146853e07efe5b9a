// The lifecycle of a campaign after it is created (API.md 3.3): recipients are copied into messages in
// batches, each batch a job of its own (a restart resumes at the next batch, never repeats a finished one),
// then the campaign waits for moderation or goes straight to sending, and ends when every message has its
// final status (services/sending/). The copy pays for what it copies beyond the write-off at creation
// (payForCopied); what was written off for recipients that got nothing is given back (sending/settlement.ts).
import type { Kysely } from 'kysely'
import * as campaignsRepo from '../../storage/repos/campaigns.js'
import * as messageQueue from '../../storage/repos/message-queue.js'
import * as messageStats from '../../storage/repos/message-stats.js'
import * as accountsRepo from '../../storage/repos/accounts.js'
import * as booksRepo from '../../storage/repos/address-books.js'
import { enqueueJob } from '../../storage/repos/jobs.js'
import { CONTACT_STATUS, findContact } from '../../storage/repos/contacts.js'
import { findBlacklistedEmails } from '../../storage/repos/blacklist.js'
import type { Database } from '../../storage/tables.js'
import type { JobHandler } from '../../dispatcher/jobs.js'
import { finishIfDone, moveCampaign } from '../sending/campaign-status.js'
import { settleCharge } from '../sending/settlement.js'
import type { Deps } from '../types.js'

const { CAMPAIGN_STATUS } = campaignsRepo

export const SNAPSHOT_JOB = 'campaign.snapshot'
/** Contacts copied per transaction: large enough to be quick, small enough not to hold the writer long. */
const SNAPSHOT_BATCH = 5000
/** From this many recipients on, a campaign passes moderation (API.md 3.3). */
const MODERATED_FROM = 20

interface SnapshotStep {
  campaignId: number
  listIndex: number
  afterId: number
  /** Messages copied by the steps before; absent in steps queued before it was counted (then it is counted). */
  copied?: number
}

export async function queueSnapshot(db: Kysely<Database>, campaign: { id: number; accountId: number }, when: { now: number; runAt: number }): Promise<void> {
  const step: SnapshotStep = { campaignId: campaign.id, listIndex: 0, afterId: 0, copied: 0 }
  await enqueueJob(db, { accountId: campaign.accountId, kind: SNAPSHOT_JOB, payload: step, now: when.now, runAt: when.runAt })
}

/** Copies one batch, then queues the next step or finishes the copy. */
const snapshotStep: JobHandler = async (deps, payload, tx) => {
  const step = payload as SnapshotStep
  const campaign = await campaignsRepo.findCampaignById(tx, step.campaignId)
  // Canceled while copying: the rest is never copied.
  if (!campaign || campaign.status !== CAMPAIGN_STATUS.copying) return
  const first = step.listIndex === 0 && step.afterId === 0
  // A dynamic list whose sending time was moved later: the job queued by that edit copies it then.
  if (first && campaign.useDynamicList && campaign.sendAt > deps.now()) return
  // One copy per campaign, so that its count of copied messages is the campaign's: the job queued for a time an
  // edit moved earlier steps aside when it comes.
  if (first && !(await campaignsRepo.claimCopy(tx, campaign.id, deps.now()))) return
  const bookId = campaign.listIds[step.listIndex]
  if (bookId !== undefined) {
    const { copied, lastId } = await messageQueue.snapshotBatch(tx, {
      campaignId: campaign.id,
      accountId: campaign.accountId,
      bookId,
      afterId: step.afterId,
      batch: SNAPSHOT_BATCH,
      queued: deps.config.moderation === 'auto',
      sendAt: campaign.sendAt,
      now: deps.now(),
    })
    const total = step.copied === undefined ? await messageStats.countMessages(tx, campaign.id) : step.copied + copied
    // The batch is paid for before it commits, because once committed its messages may be sent at once.
    const unpaid = await payForCopied(tx, campaign, total, deps.now())
    if (unpaid > 0) {
      // The balance is spent: the rest of the lists would be unpaid too, so the copy ends here.
      await messageQueue.dropLastCopied(tx, campaign.id, unpaid)
      await finishSnapshot(deps, tx, campaign)
      return
    }
    const where = lastId === undefined ? { listIndex: step.listIndex + 1, afterId: 0 } : { afterId: lastId }
    const next: SnapshotStep = { ...step, ...where, copied: total }
    if (next.listIndex < campaign.listIds.length) {
      await enqueueJob(tx, { accountId: campaign.accountId, kind: SNAPSHOT_JOB, payload: next, now: deps.now() })
      return
    }
  }
  await finishSnapshot(deps, tx, campaign)
}

/** Whether the copy under way will make `email` a recipient: active on one of the lists and not blacklisted, as snapshotBatch copies. */
export async function willBeCopied(db: Kysely<Database>, campaign: campaignsRepo.CampaignRow, email: string): Promise<boolean> {
  if (campaign.status !== CAMPAIGN_STATUS.copying) return false
  if ((await findBlacklistedEmails(db, campaign.accountId, [email])).size > 0) return false
  for (const bookId of campaign.listIds) {
    if ((await findContact(db, bookId, email))?.status === CONTACT_STATUS.active) return true
  }
  return false
}

export const campaignJobHandlers: Readonly<Record<string, JobHandler>> = { [SNAPSHOT_JOB]: snapshotStep }

async function finishSnapshot(deps: Deps, tx: Kysely<Database>, campaign: campaignsRepo.CampaignRow): Promise<void> {
  const now = deps.now()
  await campaignsRepo.lockCampaign(tx, campaign.id)
  const total = await messageStats.countMessages(tx, campaign.id)
  const counts = await booksRepo.countContactsByBook(tx, campaign.listIds)
  const listed = campaign.listIds.reduce((sum, id) => sum + (counts.get(id)?.all ?? 0), 0)
  const extra = { all_email_qty: total, skipped_qty: Math.max(listed - total, 0) }
  if (total === 0) {
    await moveCampaign(tx, { id: campaign.id, from: [CAMPAIGN_STATUS.copying], to: CAMPAIGN_STATUS.noActiveAddresses, now, extra: { ...extra, finished_at: now } })
    await settleCharge(tx, campaign, now)
    return
  }
  const held = deps.config.moderation === 'manual' && total >= MODERATED_FROM
  if (!held && deps.config.moderation === 'manual') await messageQueue.releaseHeld(tx, campaign.id, now)
  const to = held ? CAMPAIGN_STATUS.pending : CAMPAIGN_STATUS.sending
  await moveCampaign(tx, { id: campaign.id, from: [CAMPAIGN_STATUS.copying], to, now, extra: { ...extra, started_at: now } })
  await settleCharge(tx, campaign, now)
  if (!held) await finishIfDone(tx, campaign.id, now)
}

/**
 * Charges the recipients copied beyond what was written off at creation, whose count was the lists' then: a dynamic
 * list read at the sending time, contacts added while the copy waited in the queue. Under the account's lock, like
 * the write-off at creation, and never beyond the balance: returns how many of the `total` copied it could not pay
 * for (the last copied), which must not be sent.
 */
async function payForCopied(tx: Kysely<Database>, campaign: campaignsRepo.CampaignRow, total: number, now: number): Promise<number> {
  const price = campaign.priceMicros
  // Only a cancel lowers the charge while copying (and a canceled campaign is not charged): most batches are known
  // to be paid without a lock.
  if (price === 0 || total <= Math.floor(campaign.chargedMicros / price)) return 0
  await campaignsRepo.lockCampaign(tx, campaign.id)
  const current = await campaignsRepo.findCampaignById(tx, campaign.id)
  // Canceled meanwhile: its messages end as not sent, and what was paid is settled by the cancel.
  if (!current || current.status !== CAMPAIGN_STATUS.copying) return 0
  const paid = Math.floor(current.chargedMicros / price)
  if (total <= paid) return 0
  await accountsRepo.lockAccount(tx, campaign.accountId)
  const balance = await accountsRepo.sumBalanceMicros(tx, campaign.accountId)
  const more = Math.min(total - paid, Math.floor(Math.max(balance, 0) / price))
  if (more > 0) {
    await accountsRepo.recordLedgerEntry(tx, { accountId: campaign.accountId, amountMicros: -more * price, kind: 'write_off', note: `campaign ${campaign.id}`, now })
    await campaignsRepo.addCharge(tx, campaign.id, { micros: more * price, emails: more }, now)
  }
  return total - paid - more
}
