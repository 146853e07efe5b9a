// JSON bodies of POST /addressbooks/{id}/emails of 64 KiB or more (imports send 10,000 contacts, ~1 MB, a
// request) are read and their contacts prepared on a worker thread, while the main thread writes the previous
// request's contacts: parsing and preparing were 40 % of the main thread's time in an import (docs/benchmarks.md).
// The prepared contacts stand in the body as one opaque item that only this module recognises, so every
// convention after parsing (query arguments, normalisation, validation of the other fields) runs as before;
// anything but a live list of the caller's account, or a body of another shape, takes the usual way.
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { variableTypesForAdding } from '../../services/audience/contacts.js'
import type { ContactItems } from '../../services/audience/contact-input.js'
import { AppError } from '../../services/errors.js'
import type { Deps } from '../../services/types.js'
import { WorkerDied, WorkerThread } from '../../lib/worker-thread.js'
import { emailsOf, parseJsonBody, type BodyJob, type PreparedBody } from './add-contacts-prepare.js'

/** Below this a body is parsed where it arrives: the trip to the worker and back costs ~0.2 ms. */
const WORKER_MIN_BYTES = 64 * 1024
/**
 * The worker's heap. A body is at most TIDINGS_BODY_LIMIT (8 MB by default), and the worst JSON for its
 * size (`[{},{},…]`) takes ~20 bytes of heap per byte: 512 MB is never reached by a body the server reads,
 * and the worker cannot take the server's memory with it. When it is, that request alone gets a 413.
 */
const WORKER_HEAP_MB = 512

const preparer = new WorkerThread<BodyJob, PreparedBody>(
  new URL(`./add-contacts-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
  { maxOldGenerationSizeMb: WORKER_HEAP_MB },
)

/** The items of the bodies prepared here, by the opaque item standing for them. */
const preparedItems = new WeakMap<object, ContactItems>()

/**
 * The variable types each list had when contacts were last added to it, by account and list. Reading them
 * from the database would wait, on SQLite, for the transaction of the request before (it holds the one
 * connection), and the worker would sit idle meanwhile. They are only a guess: addContacts compares them with
 * the types in its transaction and prepares the contacts again when they differ. Entries are made for lists
 * the database said were the account's; at most MAX_TYPES_SEEN of them per database.
 */
const typesSeen = new WeakMap<Deps['db'], Map<string, ReadonlyMap<string, string>>>()
const MAX_TYPES_SEEN = 1000

/** Replaces the JSON parser of the routes of `app` (an encapsulated context holding the add route alone). */
export function prepareContactBodiesOffThread(app: FastifyInstance, deps: Deps): void {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer) => readBody(deps, request, body as Buffer))
}

/** Remembers the list's variable types after contacts were added to it (the answer of addContacts). */
export function rememberVariableTypes(deps: Deps, accountId: number, bookId: number, types: ReadonlyMap<string, string>): void {
  let seen = typesSeen.get(deps.db)
  if (!seen) typesSeen.set(deps.db, (seen = new Map()))
  if (seen.size >= MAX_TYPES_SEEN) seen.clear()
  seen.set(`${accountId}:${bookId}`, types)
}

/** The contacts an add request gives: prepared already when its body came through the worker. */
export function contactItemsOf(emails: readonly unknown[]): ContactItems {
  const only = emails.length === 1 ? emails[0] : undefined
  return (typeof only === 'object' && only !== null && preparedItems.get(only)) || emails
}

async function typesOf(deps: Deps, accountId: number, bookId: number): Promise<ReadonlyMap<string, string> | undefined> {
  const seen = typesSeen.get(deps.db)?.get(`${accountId}:${bookId}`)
  if (seen) return seen
  const types = await variableTypesForAdding(deps, accountId, bookId)
  if (types) rememberVariableTypes(deps, accountId, bookId, types)
  return types
}

async function readBody(deps: Deps, request: FastifyRequest, body: Buffer): Promise<unknown> {
  if (body.length < WORKER_MIN_BYTES) return parseJsonBody(body)
  const bookId = Number((request.params as { id?: unknown }).id)
  const types = Number.isSafeInteger(bookId) && bookId > 0 ? await typesOf(deps, request.accountId, bookId) : undefined
  if (!types) return parseJsonBody(body) // the route answers 404 or 422 after parsing, as it always did
  const answer = await preparer.run({ body, types: [...types] }).catch((err: unknown) => {
    if (err instanceof WorkerDied && err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      throw new AppError('payload_too_large', 'Request body takes too much memory to read', { cause: err })
    }
    throw err
  })
  switch (answer.kind) {
    case 'failed':
      throw new AppError(answer.code, answer.message)
    case 'parsed':
      return answer.body
    case 'prepared': {
      const stands = Object.freeze({})
      // Read again on this thread only if the list's variables change before the contacts are stored.
      preparedItems.set(stands, { types, columns: answer.columns, items: () => emailsOf(parseJsonBody(body)) ?? [] })
      return answer.rest === null ? [stands] : { ...answer.rest, emails: [stands] }
    }
  }
}
