// Table interfaces: Mailing lists, their email contacts and numbers, variables, tags and blacklists. Conventions: storage/tables.ts.
import type { Generated } from 'kysely'

export interface AddressBooksTable {
  id: Generated<number>
  account_id: number
  name: string
  status: number
  /** Changes whenever contacts leave the list or change status (see repos/contact-counts.ts). */
  contacts_generation: Generated<number>
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
  /** How the contact arrived: api, import or form (a confirmed double opt-in). */
  source: Generated<string>
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

/** How many contacts of a list have a status, with or without a phone; kept by repos/contacts.ts. */
export interface ContactCountsTable {
  address_book_id: number
  status: number
  /** 1 when the contacts counted have a phone */
  with_phone: number
  count: number
}

export interface TagsTable {
  id: Generated<number>
  account_id: number
  name: string
  color: string
  created_at: number
  updated_at: number
}

export interface TagLinksTable {
  tag_id: number
  account_id: number
  /** 'email' or 'phone' */
  kind: string
  value: string
  created_at: number
}

export interface EmailBlacklistTable {
  account_id: number
  email: string
  comment: string | null
  created_at: number
}

/** A number of a mailing list (API.md 4.11), apart from its email contacts. */
export interface ListPhonesTable {
  id: Generated<number>
  account_id: number
  address_book_id: number
  /** E.164 digits without the plus */
  phone: string
  /** Contact status codes (repos/contacts.ts CONTACT_STATUS) */
  status: number
  /** JSON object of variable name → value */
  variables: Generated<string>
  created_at: number
  updated_at: number
}

/** A number no Viber campaign of the account sends to (/v2/viber-service/phone-exception). */
export interface ViberBlacklistTable {
  id: Generated<number>
  account_id: number
  phone: string
  description: Generated<string>
  created_at: number
}

export interface SmsBlacklistTable {
  account_id: number
  phone: string
  description: string | null
  created_at: number
}
