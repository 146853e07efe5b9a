// Isolation as a table (issue 20, item 5): every account route that names an object (in its path, query or
// body) is found in the app's own route table, then called with account B's token on each of account A's
// objects in turn. Each call must answer 404 with the error body, exactly as for an object that does not exist
// (B cannot even tell that A's id is taken), and must change no stored row. A new route that names an
// object fails here until FILL says which object to try, so no route escapes the check by being forgotten.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { InjectOptions } from 'fastify'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { accountRoutes, type AccountRoute, type RouteParam } from '../../helpers/route-table.js'
import { createTenantObjects, type TenantObjects } from '../../helpers/tenant-objects.js'
import { changedTables, snapshotAllTables } from '../../helpers/table-snapshot.js'
import { toWireDate } from '../../../src/lib/wire-date.js'

/**
 * Which query and body properties name an object (every path parameter does): `id`, `…_id`, `…Id`, and the
 * two names the API gives ids without saying so: `address_book` (Viber's list, API.md 4.10) and `tags` (tag
 * ids, API.md 4.6).
 */
const OBJECT_REFERENCE = /^(id|address_book|tags)$|_id$|Id$/

const MISSING_ID = 999_999_999
const MISSING_ADDRESS = 'nobody@missing.example'

/** The kinds of object a parameter can name: A's value (or B's, for the other parameters) and one nobody has. */
const KINDS = {
  list: { of: (o: TenantObjects) => o.list, missing: MISSING_ID },
  contact: { of: (o: TenantObjects) => o.contact, missing: MISSING_ADDRESS },
  phone: { of: (o: TenantObjects) => o.phone, missing: 380639999999 },
  template: { of: (o: TenantObjects) => o.template, missing: MISSING_ID },
  templateSlug: { of: (o: TenantObjects) => o.templateSlug, missing: 'no-such-template' },
  sender: { of: (o: TenantObjects) => o.sender, missing: MISSING_ADDRESS },
  viberSender: { of: (o: TenantObjects) => o.viberSender, missing: MISSING_ID },
  tags: { of: (o: TenantObjects) => [o.tag], missing: [MISSING_ID] },
  tag: { of: (o: TenantObjects) => o.tag, missing: MISSING_ID },
  webhook: { of: (o: TenantObjects) => o.webhook, missing: MISSING_ID },
  campaign: { of: (o: TenantObjects) => o.campaign, missing: MISSING_ID },
  smsCampaign: { of: (o: TenantObjects) => o.smsCampaign, missing: MISSING_ID },
  viberCampaign: { of: (o: TenantObjects) => o.viberCampaign, missing: MISSING_ID },
  outboxEmail: { of: (o: TenantObjects) => o.outboxEmail, missing: MISSING_ID },
} satisfies Record<string, { of: (o: TenantObjects) => unknown; missing: unknown }>
type Kind = keyof typeof KINDS

/** Which object fills a parameter: the rule with the longest `under` that starts the route's path and names the parameter. */
const FILL: { under: string; param: string; kind: Kind }[] = [
  { under: '/addressbooks', param: 'id', kind: 'list' },
  { under: '/addressbooks', param: 'email', kind: 'contact' },
  { under: '/emails', param: 'email', kind: 'contact' },
  { under: '/campaigns', param: 'id', kind: 'campaign' },
  { under: '/campaigns', param: 'email', kind: 'contact' },
  { under: '/template/edit', param: 'id', kind: 'template' },
  { under: '/template', param: 'template_id', kind: 'template' },
  { under: '/template/slug', param: 'name_slug', kind: 'templateSlug' },
  { under: '/senders', param: 'email', kind: 'sender' },
  { under: '/tags', param: 'id', kind: 'tag' },
  { under: '/sms/campaigns', param: 'id', kind: 'smsCampaign' },
  { under: '/sms/numbers/info', param: 'phoneNumber', kind: 'phone' },
  { under: '/viber/senders', param: 'id', kind: 'viberSender' },
  { under: '/viber/task', param: 'id', kind: 'viberCampaign' },
  { under: '/viber/update', param: 'main_task_id', kind: 'viberCampaign' },
  { under: '/v2/email-service/webhook', param: 'id', kind: 'webhook' },
  { under: '/outbox', param: 'campaign_id', kind: 'campaign' },
  { under: '/outbox', param: 'id', kind: 'outboxEmail' },
  { under: '', param: 'list_id', kind: 'list' },
  { under: '', param: 'addressBookId', kind: 'list' },
  { under: '', param: 'address_book', kind: 'list' },
  { under: '', param: 'template_id', kind: 'template' },
  { under: '', param: 'sender_id', kind: 'viberSender' },
  { under: '', param: 'tags', kind: 'tags' },
]

/** Parameters that name no object of an account, each with the reason: only these are left untried. */
const NOT_OBJECTS: Record<string, string> = {
  'GET /balance/{currency} currency': 'a currency code (ISO 4217), the same for every account',
  'GET /addressbooks/{id}/variables/{variableName}/{searchValue} variableName': 'a search term inside the list {id} (tried): a variable name, not an object',
  'GET /addressbooks/{id}/variables/{variableName}/{searchValue} searchValue': 'a search term inside the list {id} (tried): a value, not an object',
  'POST /campaigns segment_id': 'Tidings has no segments (services/email/campaign-input.ts answers 404 to every segment_id): A cannot own one',
}

/**
 * Parameters where another account's object is not answered 404, each with the reason. The answer must still
 * be the one for an object nobody has, and change nothing.
 */
const ANSWERED_OTHERWISE: Record<string, { status: number; why: string }> = {
  ...Object.fromEntries(
    ['GET /emails/{email}', 'DELETE /emails/{email}', 'GET /emails/{email}/details', 'GET /emails/{email}/campaigns'].map((route) => [
      `${route} email`,
      { status: 200, why: "an address looked up across the caller's own lists (API.md 4.5 lists no 404): one they do not hold answers empty, as one nobody holds" },
    ]),
  ),
  'POST /viber sender_id': { status: 422, why: 'an argument naming a sender name of the caller (API.md 4.10.1; viber/campaigns.test.ts): 422 "Argument sender_id …"' },
  'POST /viber/update sender_id': { status: 422, why: 'as for POST /viber' },
  // Checked with the other arguments of the new contacts, before the list is written: 422 "Argument … is invalid".
  'POST /addressbooks/{id}/emails tags': { status: 422, why: 'tag ids to put on the new contacts: "Argument tags is invalid"' },
  'POST /addressbooks/{id}/emails template_id': { status: 422, why: 'the double opt-in email\'s template: "Argument template_id is invalid: no such template"' },
}

/** The rest of each request, valid for B with B's own objects, so that A's object is the only thing wrong. */
function sampleInput(route: AccountRoute, b: TenantObjects, later: string): Record<string, unknown> {
  const html = Buffer.from('<p>Hello</p>').toString('base64')
  const variables = [{ name: 'city', type: 'string', value: 'Lviv' }]
  const viber = { task_name: 'B sale', message_type: 2, message_live_time: 3600, send_date: later, message: 'Sale' }
  const samples: Record<string, Record<string, unknown>> = {
    'PUT /addressbooks/{id}': { name: 'Taken over by B' },
    'POST /addressbooks/{id}/emails': { emails: ['new@b.example'], confirmation: 'force', sender_email: b.sender, message_lang: 'en' },
    'DELETE /addressbooks/{id}/emails': { emails: [b.contact] },
    'POST /addressbooks/{id}/emails/unsubscribe': { emails: [b.contact] },
    'POST /addressbooks/{id}/emails/variable': { email: b.contact, variables: [{ name: 'city', value: 'Lviv' }] },
    'PUT /addressbooks/{id}/phone': { email: b.contact, phone: '380671234567' },
    'POST /addressbooks/{id}/phones/variable': { phone: b.phone, variables },
    'POST /senders/{email}/code': { code: '123456' },
    'PUT /tags/{id}': { name: 'Taken over by B', color: '#000000' },
    'POST /tags/pin/email': { email: b.contact },
    'POST /tags/unpin/email': { email: b.contact },
    'POST /tags/pin/phone': { phone: String(b.phone) },
    'POST /tags/unpin/phone': { phone: String(b.phone) },
    'POST /template/edit/{id}': { body: html },
    'POST /campaigns': { sender_name: 'B', sender_email: b.sender, subject: 'Hi', send_date: later },
    'PATCH /campaigns/{id}': { name: 'Taken over by B' },
    'POST /sms/campaigns': { sender: b.smsSender, body: 'Hi', date: later },
    'GET /sms/campaigns/cost': { sender: b.smsSender, body: 'Hi' },
    'POST /sms/numbers': { phones: [380671234567] },
    'PUT /sms/numbers': { phones: [b.phone], variables },
    'DELETE /sms/numbers': { phones: [b.phone] },
    'POST /sms/numbers/variables': { phones: { [b.phone]: [variables] } },
    'POST /viber': viber,
    'POST /viber/update': viber,
    'PUT /v2/email-service/webhook/{id}': { url: 'https://hooks.example/b' },
  }
  return samples[`${route.method} ${route.path}`] ?? {}
}

const key = (route: AccountRoute) => `${route.method} ${route.path}`

function fillRule(route: AccountRoute, param: RouteParam) {
  return FILL.filter((rule) => rule.param === param.name && route.path.startsWith(rule.under)).sort((x, y) => y.under.length - x.under.length)[0]
}

/** The parameters of `route` that name an object and are to be tried. */
function objectParams(route: AccountRoute): RouteParam[] {
  return route.params.filter((p) => (p.in === 'path' || OBJECT_REFERENCE.test(p.name)) && NOT_OBJECTS[`${key(route)} ${p.name}`] === undefined)
}

/** The request with `tried` set to `value` and every other object parameter to B's own object. */
function request(route: AccountRoute, b: TenantObjects, later: string, tried: RouteParam, value: unknown): InjectOptions {
  const input: Record<string, unknown> = { ...sampleInput(route, b, later) }
  let url = route.url
  for (const param of objectParams(route)) {
    const rule = fillRule(route, param)
    if (!rule) continue
    const filled = param === tried ? value : KINDS[rule.kind].of(b)
    if (param.in === 'path') url = url.replace(`:${param.name}`, encodeURIComponent(String(filled)))
    else input[param.name] = filled
  }
  if (route.method === 'GET') return { method: 'GET', url, query: Object.fromEntries(Object.entries(input).map(([k, v]) => [k, String(v)])) }
  return { method: route.method as InjectOptions['method'], url, payload: input }
}

for (const dialect of DIALECTS) {
  describe(`isolation of every account route on ${dialect}`, async () => {
    let t: TestApp
    let a: TenantObjects
    let b: TenantObjects
    let later: string
    before(async () => {
      // Thousands of calls by a few accounts on a test clock that never moves: the request limit (TIDINGS_API_RATE,
      // tested in request-limit.test.ts) would answer most of them 429 and leave the routes untested.
      t = await startTestApp(dialect, { apiRatePerSecond: 0 })
      later = toWireDate(t.clock.now + 3_600_000)
      a = await createTenantObjects(t, await t.account('account A'))
      b = await createTenantObjects(t, await t.account('account B'))
    })
    after(() => t.close())

    // The route table is read from an app of its own, before the cases are declared (one `it` per route).
    const discovery = await startTestApp('sqlite')
    const routes = await accountRoutes(discovery.app).finally(() => discovery.close())
    const withObjects = routes.filter((route) => objectParams(route).length > 0)

    it('finds the account routes in the route table, most of them naming an object', () => {
      assert.ok(routes.length >= 90, `${routes.length} account routes found`)
      assert.ok(withObjects.length >= 55, `${withObjects.length} of them name an object`)
    })

    for (const route of withObjects) {
      it(`${key(route)}: B's token on each of A's objects answers 404 as for none, changing nothing`, async () => {
        for (const param of objectParams(route)) {
          const rule = fillRule(route, param)
          assert.ok(rule, `nothing says which object fills {${param.name}} (${param.in}) of ${key(route)}: add a rule to FILL in this file, or the parameter to NOT_OBJECTS with the reason`)
          const kind = KINDS[rule.kind]
          const before = await snapshotAllTables(t.deps)
          const onA = await t.call(b.account, request(route, b, later, param, kind.of(a)))
          const onNone = await t.call(b.account, request(route, b, later, param, kind.missing))
          const what = `B's ${key(route)} with A's ${param.name} (${rule.kind})`
          assert.deepEqual(changedTables(before, await snapshotAllTables(t.deps)), {}, `${what} changed stored rows`)
          const expected = ANSWERED_OTHERWISE[`${key(route)} ${param.name}`]?.status ?? 404
          assert.equal(onA.statusCode, expected, `${what}: ${onA.statusCode} ${onA.body}`)
          if (expected >= 400) {
            const body = onA.json<{ error_code: unknown; message: unknown }>()
            assert.deepEqual(Object.keys(body).sort(), ['error_code', 'message'], `${what}: ${onA.body}`)
            assert.equal(typeof body.error_code, 'number')
            assert.equal(typeof body.message, 'string')
          }
          // Messages may name the id they were given ("Tag not found: 7"): each is read with it left out.
          const unnamed = (answer: { json(): unknown }, value: unknown) => {
            const body = answer.json() as { message?: unknown }
            if (typeof body?.message !== 'string') return body
            return { ...body, message: [value].flat().reduce<string>((text, v) => text.replaceAll(String(v), '…'), body.message) }
          }
          assert.equal(onNone.statusCode, onA.statusCode, `${what}: answers unlike a missing one: ${onNone.body}`)
          assert.deepEqual(unnamed(onNone, kind.missing), unnamed(onA, kind.of(a)), `${what}: answers unlike a missing one`)
        }
      })
    }
  })
}
