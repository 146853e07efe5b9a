// What the Viber provider reports of a message (its signed callbacks, or the capture channel's simulation) and the
// clicks on a message's button, applied to the message; an undelivered one gets its SMS instead (sms-instead.ts).
import * as viberMessages from '../../storage/repos/viber-messages.js'
import * as campaignsRepo from '../../storage/repos/campaigns.js'
import type { ViberReport } from '../../delivery/viber/channel.js'
import { signToken, verifyToken } from '../../tracking/signed-token.js'
import { verifyingKeys } from '../../tracking/signing-key.js'
import type { Deps } from '../types.js'
import { readViberOptions } from './campaign-input.js'
import { sendSmsInstead } from './sms-instead.js'

/** Stores and applies one report; false when no Viber message has its id (an unknown callback). */
export async function recordViberReport(deps: Deps, report: ViberReport): Promise<boolean> {
  const now = deps.now()
  return deps.db.transaction().execute(async (tx) => {
    // `submitted` says nothing the submit's answer did not: the message only has to be ours.
    if (report.state === 'submitted') return (await viberMessages.knownViberMessages(tx, [report.messageId])).size > 0
    const { found, undelivered } = await viberMessages.storeReports(tx, [{ messageId: report.messageId, state: report.state }], now)
    if (found.size === 0) return false
    await sendSmsInstead(tx, deps, undelivered, now)
    return true
  })
}

/** The reports that never end a message undelivered: submitted, delivered, read. */
export type ViberDeliveryReport = ViberReport & { state: 'submitted' | 'delivered' | 'read' }

export function isDeliveryReport(report: ViberReport): report is ViberDeliveryReport {
  return report.state === 'submitted' || report.state === 'delivered' || report.state === 'read'
}

/**
 * recordViberReport for many delivery reports in one transaction; returns the ids of the messages whose reports it
 * stored. A delivered or read report outranks any failure stored before it, so none ends a message undelivered and
 * no SMS instead is queued: the transaction locks message rows alone, and never waits for one (storeReports'
 * skipLocked), so it cannot deadlock. The reports of the others — a message another transaction holds (on
 * PostgreSQL: its batch being recorded), or no Viber message — are for recordViberReport, one by one.
 */
export async function recordViberDeliveries(deps: Deps, reports: readonly ViberDeliveryReport[]): Promise<Set<number>> {
  const now = deps.now()
  return deps.db.transaction().execute(async (tx) => {
    const deliveries = reports.flatMap((r) => (r.state === 'submitted' ? [] : [{ messageId: r.messageId, state: r.state }]))
    const { found } = await viberMessages.storeReports(tx, deliveries, now, { skipLocked: true })
    const submitted = reports.filter((r) => r.state === 'submitted').map((r) => r.messageId)
    for (const id of await viberMessages.knownViberMessages(tx, submitted)) found.add(id)
    return found
  })
}

/** Ends Viber messages whose live time passed undelivered, and queues their SMS; returns how many ended. */
export async function expireViberMessages(deps: Deps, limit: number): Promise<number> {
  const now = deps.now()
  return deps.db.transaction().execute(async (tx) => {
    const expired = await viberMessages.expireUndelivered(tx, now, limit)
    await sendSmsInstead(tx, deps, expired, now)
    return expired.length
  })
}

const BUTTON_PURPOSE = 'viber-button'

/** The token of a message's button link: TIDINGS_PUBLIC_URL/v/{token} records the click, then redirects. */
export function buttonToken(key: Buffer, messageId: number): string {
  return signToken(key, BUTTON_PURPOSE, String(messageId))
}

/** Records a click on a message's button and answers where it leads; undefined for a token that is not ours. */
export async function followViberButton(deps: Deps, token: string): Promise<string | undefined> {
  const payload = verifyToken(await verifyingKeys(deps), BUTTON_PURPOSE, token)
  const messageId = payload !== undefined && /^[1-9]\d{0,15}$/.test(payload) ? Number(payload) : undefined
  if (messageId === undefined) return undefined
  const message = await deps.db.selectFrom('messages').select('campaign_id').where('id', '=', messageId).where('channel', '=', 'viber').executeTakeFirst()
  const campaign = message && (await campaignsRepo.findCampaignById(deps.db, Number(message.campaign_id)))
  const link = campaign && readViberOptions(campaign.channelOptions).button?.link
  if (!link) return undefined
  await viberMessages.recordButtonClick(deps.db, messageId, deps.now())
  return link
}
