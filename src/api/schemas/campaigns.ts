// Wire schemas of the campaign routes (API.md 2.3, 4.2, 4.2.1).
import { Type } from '@sinclair/typebox'
import { Id, Name, PageQuery } from './common.js'

const Files = Type.Record(Type.String(), Type.Any(), { description: 'file name → content; at most 5' })
const Base64Html = Type.String({ description: 'HTML, Base64-encoded' })
const TemplateRef = Type.Union([Type.Integer(), Type.String()], { description: 'real_id or string id of a template' })
const SendDate = Type.String({ description: 'YYYY-MM-DD HH:MM:SS (UTC), not in the past; empty or 0001-01-01 00:00:00: now' })

export const CreateCampaignBody = Type.Object({
  sender_name: Type.String({ minLength: 1, maxLength: 255 }),
  sender_email: Type.String({ minLength: 1, maxLength: 320, description: 'an active sender of the account' }),
  subject: Type.String({ minLength: 1, maxLength: 998, description: 'may hold variables: {{name}}' }),
  body: Type.Optional(Base64Html),
  template_id: Type.Optional(TemplateRef),
  list_id: Type.Optional(Type.Union([Id, Type.Array(Id)], { description: 'one list or up to 10' })),
  segment_id: Type.Optional(Id),
  is_test: Type.Optional(Type.Boolean({ description: 'one email to sender_email' })),
  send_date: Type.Optional(SendDate),
  name: Type.Optional(Name),
  use_dynamic_list: Type.Optional(Type.Boolean()),
  attachments: Type.Optional(Files),
  attachments_binary: Type.Optional(Files),
  type: Type.Optional(Type.String({ description: '`draft`' })),
  body_amp: Type.Optional(Type.String({ description: 'AMP for Email HTML, Base64; the operator must allow it for the account' })),
  stats: Type.Optional(
    Type.Object({
      clicks: Type.Optional(Type.Boolean({ description: 'track clicks (default true)' })),
      opens: Type.Optional(Type.Boolean({ description: 'track opens (default true)' })),
      utm_campaign: Type.Optional(Type.String({ maxLength: 255, description: 'added as utm_campaign to every link' })),
    }),
  ),
})

export const CampaignCreated = Type.Object({
  id: Type.Integer(),
  status: Type.Integer({ description: '13 copying addresses, 26 draft, 4 test' }),
  count: Type.Integer(),
  tariff_email_qty: Type.Integer(),
  overdraft_price: Type.String(),
  ovedraft_currency: Type.String({ description: 'the published spelling' }),
  overdraft_currency: Type.String({ description: 'the spelling the Go SDK reads' }),
})

export const EditCampaignBody = Type.Object({
  name: Type.Optional(Name),
  sender_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  sender_email: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
  subject: Type.Optional(Type.String({ minLength: 1, maxLength: 998 })),
  body: Type.Optional(Base64Html),
  template_id: Type.Optional(TemplateRef),
  send_date: Type.Optional(SendDate),
})

export const ListCampaignsQuery = Type.Object({
  ...PageQuery.properties,
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  // Campaign status codes are small; past PostgreSQL's integer column (2^31 - 1) the filter failed the query (a 500).
  status: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 }), { description: 'sent as status[]=' })),
  planed: Type.Optional(Type.Boolean({ description: 'only campaigns scheduled for later' })),
})

const money = {
  all_email_qty: Type.Integer(),
  tariff_email_qty: Type.Integer(),
  paid_email_qty: Type.Integer(),
  overdraft_price: Type.Number(),
  company_price: Type.String(),
  overdraft_currency: Type.String(),
}

const common = {
  id: Type.Integer(),
  name: Type.String(),
  status: Type.Integer(),
  is_sms: Type.Boolean(),
  is_viber: Type.Boolean(),
  send_date: Type.String(),
  ...money,
}

const messageFields = {
  sender_name: Type.String(),
  sender_email: Type.String(),
  subject: Type.String(),
  attachments: Type.String({ description: 'file names' }),
  list_id: Type.Integer(),
}

const totals = {
  sent: Type.Integer(),
  delivered: Type.Integer(),
  opening: Type.Integer(),
  link_redirected: Type.Integer(),
  unsubscribe: Type.Integer(),
  error: Type.Integer(),
}

export const CampaignListItem = Type.Object({
  ...common,
  message: Type.Object(messageFields),
  statistics: Type.Object(totals),
})

const extension = (description: string) => ({ description: `Tidings extension: ${description}` })

export const Campaign = Type.Object({
  ...common,
  message: Type.Object({ ...messageFields, body: Type.String({ description: 'HTML' }), preheader: Type.String() }),
  external_stat: Type.Object({ check_open_email: Type.Boolean(), check_redirect_link: Type.Boolean() }),
  permalink: Type.String(),
  skipped_email_qty: Type.Integer({
    description: 'Tidings extension: contacts of the lists left out (not active, blacklisted, already on another of the lists, or not paid for: the balance was short when they were copied)',
  }),
  statistics: Type.Object({
    sent: Type.Integer(extension('messages sent, as in the list of campaigns')),
    delivered: Type.Integer(extension('messages delivered (codes 2, 3, 4, 5, 11)')),
    opening: Type.Integer(extension('messages opened')),
    link_redirected: Type.Integer(extension('messages with a link clicked')),
    unsubscribe: Type.Integer(extension('recipients who unsubscribed')),
    error: Type.Integer(extension('messages bounced or refused (codes 6, 8, 9, 10, 12, 14, 16, 17, 18)')),
    general: Type.Array(Type.Object({ code: Type.Integer(), count: Type.Integer(), explain: Type.String() })),
    clicks: Type.Array(Type.Object({ url: Type.String(), count: Type.Integer() })),
  }),
})

export const Countries = Type.Record(Type.String(), Type.Integer(), { description: 'country code → opens' })
export const Referrals = Type.Array(Type.Object({ link: Type.String(), count: Type.Integer() }))

export const CampaignEmailParams = Type.Object({ id: Id, email: Type.String({ minLength: 1, maxLength: 320 }) })

export const CampaignEmail = Type.Object({
  sent_date: Type.Union([Type.String(), Type.Null()]),
  send_date: Type.Union([Type.String(), Type.Null()], { description: 'the name the Go SDK reads' }),
  global_status: Type.Integer(),
  global_status_explain: Type.String(),
  detail_status: Type.Integer(),
  detail_status_explain: Type.String(),
})

export const CampaignUpdated = Type.Object({ result: Type.Boolean(), id: Type.Integer() })
