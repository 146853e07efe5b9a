// Webhooks (API.md 2.9, 4.9): URLs that receive the account's email events (section 6), one record per
// action, and the secret their deliveries are signed with (Standard Webhooks; a Tidings extension).
import * as webhooksRepo from '../../storage/repos/webhooks.js'
import * as attemptsRepo from '../../storage/repos/webhook-attempts.js'
import * as queueRepo from '../../storage/repos/webhook-queue.js'
import type { FailedEvent } from '../../storage/repos/webhook-queue.js'
import { newWebhookSecret } from '../../delivery/webhooks/signature.js'
import { withoutAddresses } from '../../delivery/webhooks/failure-text.js'
import { AppError } from '../errors.js'
import type { Deps } from '../types.js'

/** API.md 6, in its order. */
export const WEBHOOK_ACTIONS = ['new_emails', 'delete', 'unsubscribe', 'task_status_update', 'open', 'delivered', 'redirect', 'spam', 'hard_bounces', 'soft_bounces'] as const
export type WebhookAction = (typeof WEBHOOK_ACTIONS)[number]

export type Webhook = webhooksRepo.WebhookRow

const webhookNotFound = () => new AppError('not_found', 'Webhook not found')

function urlOf(raw: string): string {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    throw new AppError('invalid', 'Argument url must be an http:// or https:// URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('invalid', 'Argument url must be an http:// or https:// URL')
  if (url.username || url.password) throw new AppError('invalid', 'Argument url must not hold a user name or password')
  checkHostName(url.hostname)
  return url.toString()
}

/** RFC 1035 2.3.4 and RFC 1123 2.1: a name of at most 253 characters as written, in labels of 1 to 63. */
const MAX_HOST_LENGTH = 253
const MAX_LABEL_LENGTH = 63

/**
 * URL takes any run of dots as a host. No such name resolves: dns.lookup fails with EINVAL and a message that
 * holds the whole host, stored for every attempt and shown in the delivery log (a host of ~2,000 dots made the
 * log's address scrubbing take seconds per read before it was made linear).
 */
function checkHostName(hostname: string): void {
  // An IPv6 literal ([::1]) has no labels; IPv4 ones are names of four labels of digits.
  if (hostname.startsWith('[')) return
  // One trailing dot writes the name fully qualified (example.com.): the root's label, not an empty one.
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname
  if (name.length > MAX_HOST_LENGTH) throw new AppError('invalid', `Argument url must have a host name of at most ${MAX_HOST_LENGTH} characters`)
  if (name.split('.').some((label) => label.length === 0 || label.length > MAX_LABEL_LENGTH)) {
    throw new AppError('invalid', `Argument url must have a host name whose dot-separated parts hold 1 to ${MAX_LABEL_LENGTH} characters`)
  }
}

/** `actions` as an array, or a string of one action or several separated by commas. */
function actionsOf(raw: string | string[]): WebhookAction[] {
  const names = (Array.isArray(raw) ? raw : raw.split(',')).map((a) => String(a).trim()).filter(Boolean)
  if (names.length === 0) throw new AppError('invalid', `Argument actions is required: one or more of ${WEBHOOK_ACTIONS.join(', ')}`)
  const unknown = names.filter((a) => !WEBHOOK_ACTIONS.includes(a as WebhookAction))
  if (unknown.length > 0) throw new AppError('invalid', `Argument actions has unknown actions: ${unknown.join(', ')}; use ${WEBHOOK_ACTIONS.join(', ')}`)
  return [...new Set(names)] as WebhookAction[]
}

export async function createWebhooks(deps: Deps, accountId: number, input: { url: string; actions: string | string[] }): Promise<Webhook[]> {
  const url = urlOf(input.url)
  const actions = actionsOf(input.actions)
  return deps.db.transaction().execute((tx) => webhooksRepo.addWebhooks(tx, { accountId, url, actions, now: deps.now() }))
}

export async function listWebhooks(deps: Deps, accountId: number): Promise<Webhook[]> {
  return webhooksRepo.listWebhooks(deps.db, accountId)
}

export async function getWebhook(deps: Deps, accountId: number, id: number): Promise<Webhook> {
  const webhook = await webhooksRepo.findWebhook(deps.db, accountId, id)
  if (!webhook) throw webhookNotFound()
  return webhook
}

/** PUT: the record moves to the new URL; events queued for the old one still go there while another webhook uses it. */
export async function updateWebhookUrl(deps: Deps, accountId: number, id: number, rawUrl: string): Promise<void> {
  const url = urlOf(rawUrl)
  const webhook = await getWebhook(deps, accountId, id)
  const now = deps.now()
  await deps.db.transaction().execute(async (tx) => {
    const endpointId = await webhooksRepo.endpointFor(tx, accountId, url, now)
    if (endpointId === webhook.endpointId) return
    const twin = (await webhooksRepo.listWebhooks(tx, accountId)).find((w) => w.endpointId === endpointId && w.action === webhook.action)
    if (twin) throw new AppError('invalid', `Argument url already receives ${webhook.action} (webhook ${twin.id}): delete one of the two instead`)
    await webhooksRepo.moveWebhook(tx, id, endpointId)
    await webhooksRepo.retireIfUnused(tx, webhook.endpointId, now)
  })
}

export async function deleteWebhook(deps: Deps, accountId: number, id: number): Promise<void> {
  const webhook = await getWebhook(deps, accountId, id)
  const now = deps.now()
  await deps.db.transaction().execute(async (tx) => {
    await webhooksRepo.deleteWebhook(tx, id)
    await webhooksRepo.retireIfUnused(tx, webhook.endpointId, now)
  })
}

/** The account's signing secret, made on first use. */
export async function webhookSecret(deps: Deps, accountId: number): Promise<string> {
  const stored = await webhooksRepo.webhookSecret(deps.db, accountId)
  if (stored) return stored
  await webhooksRepo.storeWebhookSecret(deps.db, accountId, newWebhookSecret(), null, deps.now())
  const made = await webhooksRepo.webhookSecret(deps.db, accountId)
  if (!made) throw new AppError('not_found', 'Account not found')
  return made
}

/** A new secret; deliveries from now on are signed with it. */
export async function rotateWebhookSecret(deps: Deps, accountId: number): Promise<string> {
  const previous = await webhookSecret(deps, accountId)
  const next = newWebhookSecret()
  if (!(await webhooksRepo.storeWebhookSecret(deps.db, accountId, next, previous, deps.now()))) {
    throw new AppError('conflict', 'The secret was rotated by another request at the same time; read it again')
  }
  return next
}

/** Events given up on for the webhook's URL (a Tidings extension). */
export async function failedEvents(deps: Deps, accountId: number, id: number, limit: number): Promise<FailedEvent[]> {
  const webhook = await getWebhook(deps, accountId, id)
  const shown = shownError(webhook.url)
  return (await queueRepo.failedEvents(deps.db, webhook.endpointId, limit)).map((e) => ({ ...e, error: shown(e.error) }))
}

/** The last requests made to the webhook's URL (a Tidings extension). */
export async function deliveryLog(deps: Deps, accountId: number, id: number, limit: number): Promise<attemptsRepo.AttemptRow[]> {
  const webhook = await getWebhook(deps, accountId, id)
  const shown = shownError(webhook.url)
  return (await attemptsRepo.lastAttempts(deps.db, webhook.endpointId, limit)).map((a) => ({ ...a, error: shown(a.error) }))
}

/** Errors are stored without resolved addresses (failure-text.ts); rows kept from before that may still hold them. */
function shownError(url: string): (error: string | null) => string | null {
  const target = new URL(url)
  return (error) => error && withoutAddresses(error, target)
}
