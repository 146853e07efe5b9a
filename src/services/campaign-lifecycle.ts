// The lifecycle of a campaign after it is created (API.md 3.3): recipients are copied into messages in
// batches, each batch a job of its own (a restart resumes at the next batch, never repeats a finished one),
// then the campaign waits for moderation or goes straight to sending, and ends when every message has its
// final status. What was written off for recipients that got nothing is given back to the balance.
import type { Kysely } from 'kysely'
import * as campaignsRepo from '../storage/repos/campaigns.js'
import * as messagesRepo from '../storage/repos/messages.js'
import * as accountsRepo from '../storage/repos/accounts.js'
import * as booksRepo from '../storage/repos/address-books.js'
import { enqueueJob } from '../storage/repos/jobs.js'
import { CONTACT_STATUS, findContact } from '../storage/repos/contacts.js'
import { findBlacklistedEmails } from '../storage/repos/blacklist.js'
import type { Database } from '../storage/tables.js'
import type { JobHandler } from '../dispatcher/jobs.js'
import { recordCampaignStatus } from './events.js'
import type { Deps } from './types.js'

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
}

export async function queueSnapshot(db: Kysely<Database>, campaign: { id: number; accountId: number }, when: { now: number; runAt: number }): Promise<void> {
  const step: SnapshotStep = { campaignId: campaign.id, listIndex: 0, afterId: 0 }
  await enqueueJob(db, { accountId: campaign.accountId, kind: SNAPSHOT_JOB, payload: step, now: when.now, runAt: when.runAt })
}

/** Copies one batch, then queues the next step or finishes the copy. */
const snapshotStep: JobHandler = async (deps, payload, tx) => {
  const step = payload as SnapshotStep
  const campaign = await campaignsRepo.findCampaignById(tx, step.campaignId)
  // Canceled while copying: the rest is never copied.
  if (!campaign || campaign.status !== CAMPAIGN_STATUS.copying) return
  // A dynamic list whose sending time was moved later: the job queued by that edit copies it then.
  if (step.listIndex === 0 && step.afterId === 0 && campaign.useDynamicList && campaign.sendAt > deps.now()) return
  const bookId = campaign.listIds[step.listIndex]
  if (bookId !== undefined) {
    const { lastId } = await messagesRepo.snapshotBatch(tx, {
      campaignId: campaign.id,
      accountId: campaign.accountId,
      bookId,
      afterId: step.afterId,
      batch: SNAPSHOT_BATCH,
      queued: deps.config.moderation === 'auto',
      sendAt: campaign.sendAt,
      now: deps.now(),
    })
    const next: SnapshotStep = lastId === undefined ? { ...step, listIndex: step.listIndex + 1, afterId: 0 } : { ...step, afterId: lastId }
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
  const total = await messagesRepo.countMessages(tx, campaign.id)
  const counts = await booksRepo.countContactsByBook(tx, campaign.listIds)
  const listed = campaign.listIds.reduce((sum, id) => sum + (counts.get(id)?.all ?? 0), 0)
  const extra = { all_email_qty: total, skipped_qty: Math.max(listed - total, 0) }
  if (total === 0) {
    await moveCampaign(tx, { id: campaign.id, from: [CAMPAIGN_STATUS.copying], to: CAMPAIGN_STATUS.noActiveAddresses, now, extra: { ...extra, finished_at: now } })
    await settleCharge(tx, campaign, now)
    return
  }
  const held = deps.config.moderation === 'manual' && total >= MODERATED_FROM
  if (!held && deps.config.moderation === 'manual') await messagesRepo.releaseHeld(tx, campaign.id, now)
  const to = held ? CAMPAIGN_STATUS.pending : CAMPAIGN_STATUS.sending
  await moveCampaign(tx, { id: campaign.id, from: [CAMPAIGN_STATUS.copying], to, now, extra: { ...extra, started_at: now } })
  await settleCharge(tx, campaign, now)
  if (!held) await finishIfDone(tx, campaign.id, now)
}

/** Moves a campaign's status (campaignsRepo.moveStatus) and records the task_status_update event with it. */
export async function moveCampaign(db: Kysely<Database>, change: campaignsRepo.StatusChange): Promise<boolean> {
  const moved = await campaignsRepo.moveStatus(db, change)
  if (moved) await recordCampaignStatus(db, { accountId: moved.accountId, campaignId: change.id, campaignName: moved.name, status: change.to }, change.now)
  return moved !== undefined
}

/**
 * Ends a sending campaign whose messages all have a final status: 2 → 3, or a test 4 → 8. `db` is the transaction
 * that just finished some of them: the campaign lock makes two such transactions look one after the other, so
 * the second sees the first's messages final (under READ COMMITTED both could otherwise see the other's as not).
 */
export async function finishIfDone(db: Kysely<Database>, campaignId: number, now: number): Promise<void> {
  await campaignsRepo.lockCampaign(db, campaignId)
  if (await messagesRepo.hasUnfinished(db, campaignId)) return
  const extra = { finished_at: now }
  if (await moveCampaign(db, { id: campaignId, from: [CAMPAIGN_STATUS.sending], to: CAMPAIGN_STATUS.sent, now, extra })) return
  await moveCampaign(db, { id: campaignId, from: [CAMPAIGN_STATUS.test], to: CAMPAIGN_STATUS.testSent, now, extra })
}

/** Gives back what was written off for recipients without a message, or whose message was never sent. */
export async function settleCharge(db: Kysely<Database>, campaign: campaignsRepo.CampaignRow, now: number): Promise<void> {
  if (campaign.priceMicros === 0) return
  const owed = (await messagesRepo.countMessages(db, campaign.id)) - (await messagesRepo.countMessages(db, campaign.id, [messagesRepo.MESSAGE_STATUS.notSent]))
  const fair = owed * campaign.priceMicros
  const current = (await campaignsRepo.findCampaignById(db, campaign.id))?.chargedMicros ?? campaign.chargedMicros
  if (fair >= current) return
  await accountsRepo.recordLedgerEntry(db, { accountId: campaign.accountId, amountMicros: current - fair, kind: 'refund', note: `campaign ${campaign.id}`, now })
  await campaignsRepo.setChargedMicros(db, campaign.id, fair, now)
}
