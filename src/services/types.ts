// Shared service types and the glossary.
//
// Glossary
// - account: a tenant. Everything below belongs to exactly one account, and no request authenticated as
//   one account reads or changes another's data.
// - client credentials: an account's client_id and client_secret, exchanged for an access token
//   (OAuth client_credentials) at POST /oauth/access_token.
// - access token: a bearer token valid for a limited time (3600 s by default); API key: a long-lived
//   bearer token made by the operator. Both are stored only as digests.
// - address book (mailing list): a named list of email contacts; status 0 active, 1 marked as deleted.
// - contact: an email address in one address book, with a status (API.md 3.2) and variables.
// - ledger entry: one change of an account's balance (credit, write-off); the balance is their sum.
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import type { Config } from '../config/schema.js'
import type { Database } from '../storage/tables.js'

export interface Deps {
  config: Readonly<Config>
  db: Kysely<Database>
  /** Current time in epoch milliseconds; injected so tests can move time. */
  now: () => number
  log: Logger
}

export interface Page {
  limit: number
  offset: number
}
