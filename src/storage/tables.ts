// Kysely table interfaces, snake_case as in the database. Times are epoch milliseconds (UTC);
// money is integer micro-units (1e-6 of the currency) so sums are exact on both databases.
import type { Generated } from 'kysely'

export interface AccountsTable {
  id: Generated<number>
  name: string
  client_id: string
  client_secret_hash: string
  currency: string
  plan: string
  created_at: number
  updated_at: number
}

export interface AccessTokensTable {
  token_hash: string
  account_id: number
  expires_at: number
  created_at: number
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

export interface AddressBooksTable {
  id: Generated<number>
  account_id: number
  name: string
  status: number
  created_at: number
  updated_at: number
}

export interface ContactsTable {
  id: Generated<number>
  account_id: number
  address_book_id: number
  email: string
  status: number
  phone: string | null
  variables: string
  created_at: number
  updated_at: number
}

export interface AddressBookVariablesTable {
  id: Generated<number>
  address_book_id: number
  name: string
  type: string
  created_at: number
}

export interface Database {
  accounts: AccountsTable
  access_tokens: AccessTokensTable
  api_keys: ApiKeysTable
  ledger_entries: LedgerEntriesTable
  address_books: AddressBooksTable
  contacts: ContactsTable
  address_book_variables: AddressBookVariablesTable
}
