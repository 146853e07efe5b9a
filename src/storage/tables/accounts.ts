// Table interfaces: Accounts (tenants), their credentials, tokens and balance ledger. Conventions: storage/tables.ts.
import type { Generated } from 'kysely'

export interface AccountsTable {
  id: Generated<number>
  name: string
  client_id: string
  client_secret_hash: string
  currency: string
  plan: string
  /** 1 when the operator allowed AMP bodies (`tidings accounts amp`) */
  amp_allowed: Generated<number>
  /** Signs webhook deliveries (`whsec_…`); made on first use */
  webhook_secret: string | null
  /** Set by `tidings accounts disable` (and delete): no token call, no API call */
  disabled_at: number | null
  /** Set by `tidings accounts delete`: disabled for good, API keys revoked; the data stays */
  deleted_at: number | null
  /** Bumped by every revocation; a token is valid only with its account's current version */
  credentials_version: Generated<number>
  created_at: number
  updated_at: number
}

export interface AccessTokensTable {
  token_hash: string
  account_id: number
  expires_at: number
  /** The account's credentials_version when the token was issued */
  credentials_version: Generated<number>
  created_at: number
}

/** One row (id 1): bumped by every revocation, watched by each process's token cache */
export interface CredentialRevocationsTable {
  id: number
  generation: number
  updated_at: number
}

export interface ApiKeysTable {
  id: Generated<number>
  account_id: number
  name: string
  key_hash: string
  created_at: number
  revoked_at: number | null
}

export interface LedgerEntriesTable {
  id: Generated<number>
  account_id: number
  amount_micros: number
  kind: string
  note: string | null
  created_at: number
}

/** One row per account that made API calls: its shared request bucket (migration 0016, TIDINGS_API_RATE) */
export interface ApiRequestBucketsTable {
  account_id: number
  /** Thousandths of a request left after the last take */
  milli_tokens: number
  /** Epoch ms of the last take */
  refilled_at: number
  /** Whole requests the last take was given */
  granted: number
}

/** A web console sign-in (migration 0019): the digest of the cookie's random id, never the id */
export interface ConsoleSessionsTable {
  session_hash: string
  account_id: number
  /** The API key signed in with; null for the client secret */
  api_key_id: number | null
  /** The account's credentials_version at sign-in */
  credentials_version: number
  created_at: number
  last_seen_at: number
  expires_at: number
}
