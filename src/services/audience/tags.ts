// Tags (API.md 2.6, 4.6). Changes are checked at once (input, tag ownership) but applied later by the job
// runner, as SendPulse queues them: each request queues one job and answers its queue_id. The Pro-plan rule
// (services/accounts/plans.ts) is checked by the tag routes before anything else, for every tag route.
import type { Kysely } from 'kysely'
import * as tagsRepo from '../../storage/repos/tags.js'
import * as jobsRepo from '../../storage/repos/jobs.js'
import type { Database } from '../../storage/tables.js'
import { normalizeEmail } from '../../lib/email-address.js'
import { normalizePhone } from '../../lib/phone-number.js'
import { AppError } from '../errors.js'
import type { Deps } from '../types.js'

export type Tag = tagsRepo.TagRow
export type TagTargetKind = tagsRepo.TagTargetKind

export interface TagInput {
  name: string
  color: string
}

/** A pin or unpin of tags on one email address or phone number, as the client sent it. */
export interface LinkChange {
  action: 'pin' | 'unpin'
  kind: TagTargetKind
  value: unknown
  tagIds: number[]
}

const JOB_KIND = {
  create: 'tags.create',
  update: 'tags.update',
  delete: 'tags.delete',
  pin: 'tags.pin',
  unpin: 'tags.unpin',
} as const

// Job payloads: what the request validated, applied as is by the handlers below.
type CreatePayload = TagInput & { accountId: number }
type UpdatePayload = TagInput & { accountId: number; id: number }
type DeletePayload = { accountId: number; id: number }
type LinkPayload = { accountId: number; kind: TagTargetKind; value: string; tagIds: number[] }

const tagNotFound = (ids?: number[]) => new AppError('not_found', ids ? `Tag not found: ${ids.join(', ')}` : 'Tag not found')

export async function listTags(deps: Deps, accountId: number): Promise<Tag[]> {
  return tagsRepo.listTags(deps.db, accountId)
}

/** Queues the creation of a tag; returns the job's queue_id. */
export async function queueCreateTag(deps: Deps, accountId: number, input: TagInput): Promise<string> {
  return queue(deps, accountId, JOB_KIND.create, { accountId, name: input.name, color: input.color } satisfies CreatePayload)
}

export async function queueUpdateTag(deps: Deps, accountId: number, id: number, input: TagInput): Promise<string> {
  if (!(await tagsRepo.findTag(deps.db, accountId, id))) throw tagNotFound()
  return queue(deps, accountId, JOB_KIND.update, { accountId, id, name: input.name, color: input.color } satisfies UpdatePayload)
}

export async function queueDeleteTag(deps: Deps, accountId: number, id: number): Promise<string> {
  if (!(await tagsRepo.findTag(deps.db, accountId, id))) throw tagNotFound()
  return queue(deps, accountId, JOB_KIND.delete, { accountId, id } satisfies DeletePayload)
}

/** Queues pinning or unpinning tags of the account on an email address or a phone number. */
export async function queueLinkChange(deps: Deps, accountId: number, change: LinkChange): Promise<string> {
  const value = change.kind === 'email' ? normalizeEmail(change.value) : normalizePhone(change.value)
  if (value === undefined) throw new AppError('invalid', `Argument ${change.kind} is invalid`)
  const tagIds = [...new Set(change.tagIds)]
  const found = await tagsRepo.findTagIds(deps.db, accountId, tagIds)
  const missing = tagIds.filter((id) => !found.has(id))
  if (missing.length > 0) throw tagNotFound(missing)
  const payload: LinkPayload = { accountId, kind: change.kind, value, tagIds }
  return queue(deps, accountId, change.action === 'pin' ? JOB_KIND.pin : JOB_KIND.unpin, payload)
}

/** Throws SendPulse's published 422 unless every id is a tag of the account (adding contacts with `tags`). */
export async function assertTagsExist(deps: Deps, accountId: number, tagIds: readonly number[]): Promise<void> {
  const found = await tagsRepo.findTagIds(deps.db, accountId, tagIds)
  if (tagIds.some((id) => !found.has(id))) throw new AppError('invalid', 'Argument tags is invalid')
}

function queue(deps: Deps, accountId: number, kind: string, payload: unknown): Promise<string> {
  return jobsRepo.enqueueJob(deps.db, { accountId, kind, payload, now: deps.now() })
}

/**
 * The job handlers applying queued tag changes, by job kind. Each runs inside the transaction that marks
 * its job done and must use `tx` only (on SQLite, `deps.db` waits for that very transaction). A crash or a
 * lost lease rolls a handler back with its job, so a creation is never applied twice; the others may meet a
 * tag changed meanwhile: an update or delete of a gone tag does nothing, pinning ignores existing links.
 */
export const jobHandlers: Record<string, (deps: Deps, payload: unknown, tx: Kysely<Database>) => Promise<void>> = {
  [JOB_KIND.create]: async (deps, payload, tx) => {
    const p = payload as CreatePayload
    await tagsRepo.createTag(tx, { accountId: p.accountId, name: p.name, color: p.color, now: deps.now() })
  },
  [JOB_KIND.update]: async (deps, payload, tx) => {
    const p = payload as UpdatePayload
    await tagsRepo.updateTag(tx, { accountId: p.accountId, id: p.id, name: p.name, color: p.color, now: deps.now() })
  },
  [JOB_KIND.delete]: async (_deps, payload, tx) => {
    const p = payload as DeletePayload
    await tagsRepo.deleteTag(tx, p.accountId, p.id)
  },
  [JOB_KIND.pin]: async (deps, payload, tx) => {
    const p = payload as LinkPayload
    await tagsRepo.pinTags(tx, { accountId: p.accountId, kind: p.kind, tagIds: p.tagIds, values: [p.value], now: deps.now() })
  },
  [JOB_KIND.unpin]: async (_deps, payload, tx) => {
    const p = payload as LinkPayload
    await tagsRepo.unpinTags(tx, { accountId: p.accountId, kind: p.kind, tagIds: p.tagIds, value: p.value })
  },
}
