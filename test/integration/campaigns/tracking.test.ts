// Readers' actions through the links of a real received campaign email: open pixel (with the country of the
// client address), clicks (only to that message's links), unsubscribe page and RFC 8058 one-click POST, web
// version and archived copy. Tampered tokens find nothing.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js'
import { campaignSetup, createCampaign, dispatcher, type CampaignSetup } from '../../helpers/campaigns.js'
import { smtpChannel } from '../../../src/delivery/email/smtp.js'
import { captureChannel } from '../../../src/delivery/email/capture.js'

const PUBLIC = 'https://news.example.org'

for (const dialect of DIALECTS) {
  describe(`tracking on ${dialect}`, () => {
    let t: TestApp
    let sink: SmtpSink
    let setup: CampaignSetup
    let id: number
    const html = (email: string) => String(sink.received.find((r) => r.envelopeTo[0] === email)?.mail.html ?? '')
    const linksOf = (email: string) => [...html(email).matchAll(/https:\/\/news\.example\.org(\/t\/[^"'\s]+)/g)].map((m) => m[1]!.replaceAll('&amp;', '&'))
    const path = (email: string, suffix: RegExp) => {
      const found = linksOf(email).find((l) => suffix.test(l))
      assert.ok(found, `a link ending ${suffix} in the email to ${email}`)
      return found
    }
    const detail = async () => (await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}` })).json<{ statistics: { general: { code: number; count: number }[]; clicks: unknown[] }; permalink: string }>()

    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100, publicUrl: PUBLIC, trustProxy: true })
      sink = await startSmtpSink()
      setup = await campaignSetup(t, 4)
      const created = await createCampaign(t, setup, { stats: { utm_campaign: 'spring' } })
      id = created.json<{ id: number }>().id
      const channel = smtpChannel({ url: sink.url })
      await dispatcher(t, channel).drain()
      await channel.close()
    })
    after(async () => {
      await sink.close()
      await t.close()
    })

    it('counts the first open with the country of the client address and answers a GIF', async () => {
      const pixel = path(setup.emails[0]!, /open\.gif$/)
      const opened = await t.app.inject({ method: 'GET', url: pixel, headers: { 'x-forwarded-for': '8.8.8.8' } })
      assert.equal(opened.statusCode, 200)
      assert.equal(opened.headers['content-type'], 'image/gif')
      await t.app.inject({ method: 'GET', url: pixel, headers: { 'x-forwarded-for': '8.8.8.8' } })
      assert.deepEqual((await detail()).statistics.general.find((g) => g.code === 3), { code: 3, count: 1, explain: 'Opened' })
      assert.deepEqual((await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}/countries` })).json(), { US: 1 })
    })

    it('redirects a click to the link of that message, with the UTM tag, and counts it', async () => {
      const click = path(setup.emails[1]!, /\/c\/0$/)
      const followed = await t.app.inject({ method: 'GET', url: click })
      assert.equal(followed.statusCode, 302)
      const target = new URL(String(followed.headers.location))
      assert.equal(target.origin + target.pathname, 'https://shop.example/sale')
      assert.equal(target.searchParams.get('x'), '1')
      assert.equal(target.searchParams.get('utm_campaign'), 'spring')
      const referrals = (await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}/referrals` })).json<{ link: string; count: number }[]>()
      assert.equal(referrals.length, 1)
      assert.match(referrals[0]!.link, /^https:\/\/shop\.example\/sale\?x=1&.*utm_campaign=spring/)
      assert.equal(referrals[0]!.count, 1)
      const codes = (await detail()).statistics.general
      assert.equal(codes.find((g) => g.code === 4)?.count, 1, 'a click is a link redirect')
      const stats = (await t.call(setup.account, { method: 'GET', url: `/emails/${setup.emails[1]}/campaigns` })).json<{ statistic: { open: number; link: number } }>()
      assert.deepEqual([stats.statistic.open, stats.statistic.link], [1, 1], 'a click counts as an open too')
    })

    it('redirects to links in any script, as a valid Location (punycode host, encoded path)', async () => {
      const body = Buffer.from('<p><a href="https://сайт.рф/путь?q=ї">Сайт</a> {{name}}</p>').toString('base64')
      const created = (await createCampaign(t, setup, { body })).json<{ id: number }>().id
      const channel = smtpChannel({ url: sink.url })
      await dispatcher(t, channel).drain()
      await channel.close()
      const mail = sink.received.filter((r) => r.envelopeTo[0] === setup.emails[0]).at(-1)!
      const click = /https:\/\/news\.example\.org(\/t\/[^"]+\/c\/0)/.exec(String(mail.mail.html))![1]!
      const followed = await t.app.inject({ method: 'GET', url: click })
      assert.equal(followed.statusCode, 302, followed.body)
      assert.equal(followed.headers.location, 'https://xn--80aswg.xn--p1ai/%D0%BF%D1%83%D1%82%D1%8C?q=%D1%97')
      assert.ok(created > id, 'a second campaign')
    })

    it('refuses links that were not in the message and tampered tokens with a 404', async () => {
      const click = path(setup.emails[1]!, /\/c\/0$/)
      assert.equal((await t.app.inject({ method: 'GET', url: click.replace(/\/c\/0$/, '/c/7') })).statusCode, 404)
      const token = click.split('/')[2]!
      const [payload, mac] = token.split('.')
      const forged = `${Buffer.from(String(Number(Buffer.from(payload!, 'base64url').toString()) + 1)).toString('base64url')}.${mac}`
      assert.equal((await t.app.inject({ method: 'GET', url: `/t/${forged}/c/0` })).statusCode, 404)
      assert.equal((await t.app.inject({ method: 'GET', url: `/t/${token.slice(0, -2)}xx/open.gif` })).statusCode, 404)
      assert.equal((await t.app.inject({ method: 'POST', url: `/t/${forged}/unsubscribe` })).statusCode, 404)
    })

    it('unsubscribes with the RFC 8058 one-click POST: message code 5, contact status 4', async () => {
      const email = setup.emails[2]!
      const head = sink.received.find((r) => r.envelopeTo[0] === email)!.raw.toString().replace(/\r\n\s+/g, ' ')
      const header = /^List-Unsubscribe: <https:\/\/news\.example\.org([^>]+)>/m.exec(head)
      assert.ok(header, 'a List-Unsubscribe header')
      const page = await t.app.inject({ method: 'GET', url: header[1]! })
      assert.equal(page.statusCode, 200)
      assert.match(page.body, /<form method="post" action="/)
      const posted = await t.app.inject({ method: 'POST', url: header[1]!, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
      assert.equal(posted.statusCode, 200)
      assert.match(posted.body, /unsubscribed/)
      const contact = (await t.call(setup.account, { method: 'GET', url: `/addressbooks/${setup.bookId}/emails/${email}` })).json<{ status: number }>()
      assert.equal(contact.status, 4)
      assert.equal((await detail()).statistics.general.find((g) => g.code === 5)?.count, 1)
      const perAddress = (await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}/email/${email}` })).json<{ global_status: number }>()
      assert.equal(perAddress.global_status, 5)
    })

    it('shows the web version of a message and the archived copy of the campaign', async () => {
      const view = await t.app.inject({ method: 'GET', url: path(setup.emails[3]!, /\/view$|\/unsubscribe$/).replace(/\/unsubscribe$/, '/view') })
      assert.equal(view.statusCode, 200)
      assert.match(view.body, /Hello Reader 3/)
      assert.match(String(view.headers['content-security-policy']), /default-src 'none'/)
      const permalink = new URL((await detail()).permalink)
      assert.equal(permalink.origin, PUBLIC)
      const archived = await t.app.inject({ method: 'GET', url: permalink.pathname })
      assert.equal(archived.statusCode, 200)
      assert.match(archived.body, /<h1>Hello <\/h1>/)
      assert.doesNotMatch(archived.body, /Reader/)
      assert.equal((await t.app.inject({ method: 'GET', url: `${permalink.pathname}x` })).statusCode, 404)
    })

    it("serves customers' HTML sandboxed: no script, no base URL, no form, no framing, no Referer", async () => {
      const pages = {
        view: path(setup.emails[3]!, /\/unsubscribe$/).replace(/\/unsubscribe$/, '/view'),
        archive: new URL((await detail()).permalink).pathname,
      }
      for (const [name, url] of Object.entries(pages)) {
        const res = await t.app.inject({ method: 'GET', url })
        assert.equal(res.statusCode, 200, name)
        const directives = String(res.headers['content-security-policy']).split('; ')
        for (const wanted of ["default-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"]) assert.ok(directives.includes(wanted), `${name}: ${wanted} in ${directives.join('; ')}`)
        const sandbox = directives.find((d) => d.startsWith('sandbox'))
        assert.ok(sandbox, `${name} is sandboxed`)
        assert.doesNotMatch(sandbox, /allow-scripts|allow-same-origin|allow-forms|allow-top-navigation/, name)
        assert.ok(!directives.some((d) => /^script-src/.test(d)), name)
        assert.equal(res.headers['referrer-policy'], 'no-referrer', name)
        assert.equal(res.headers['x-content-type-options'], 'nosniff', name)
      }
    })

    it('lets the unsubscribe page post only to its own URL', async () => {
      const unsubscribe = path(setup.emails[3]!, /\/unsubscribe$/)
      const res = await t.app.inject({ method: 'GET', url: unsubscribe })
      const directives = String(res.headers['content-security-policy']).split('; ')
      assert.ok(directives.includes(`form-action ${PUBLIC}${unsubscribe}`), directives.join('; '))
      assert.ok(directives.includes('sandbox allow-forms') && directives.includes("base-uri 'none'"), directives.join('; '))
      assert.equal(res.headers['referrer-policy'], 'no-referrer')
    })

    it('refuses an unsubscribe link older than the link lifetime with 410 and changes nothing; opens and clicks go on working', async () => {
      const email = setup.emails[3]!
      const contactStatus = async () => (await t.deps.db.selectFrom('contacts').select('status').where('email', '=', email).executeTakeFirstOrThrow()).status
      const before = await contactStatus()
      const month = 30 * 86_400_000 + 60_000
      t.clock.advance(month)
      try {
        const unsubscribe = path(email, /\/unsubscribe$/)
        const page = await t.app.inject({ method: 'GET', url: unsubscribe })
        assert.equal(page.statusCode, 410)
        assert.match(page.body, /expired/)
        const oneClick = await t.app.inject({ method: 'POST', url: unsubscribe, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
        assert.equal(oneClick.statusCode, 410)
        assert.equal(await contactStatus(), before, 'the contact is still subscribed')
        const message = await t.deps.db.selectFrom('messages').select('unsubscribed_at').where('address', '=', email).executeTakeFirstOrThrow()
        assert.equal(message.unsubscribed_at, null)
        assert.equal((await t.app.inject({ method: 'GET', url: path(email, /open\.gif$/) })).statusCode, 200, 'an open still counts')
        assert.equal((await t.app.inject({ method: 'GET', url: path(email, /\/c\/1$/) })).statusCode, 302, 'a link still leads to its target')
      } finally {
        t.clock.advance(-month)
      }
    })
  })

  describe(`customers' HTML on a separate origin on ${dialect}`, () => {
    const CONTENT = 'https://content.example.net'
    let t: TestApp
    let setup: CampaignSetup
    let id: number

    before(async () => {
      t = await startTestApp(dialect, { publicUrl: PUBLIC, contentUrl: CONTENT })
      setup = await campaignSetup(t, 1)
      const body = Buffer.from('<html><body><p>Hello {{name}}</p><a href="{{permalink}}">Web version</a></body></html>').toString('base64')
      id = (await createCampaign(t, setup, { body })).json<{ id: number }>().id
      await dispatcher(t, captureChannel()).drain()
    })
    after(() => t.close())

    it('links the web version and the archived copy at TIDINGS_CONTENT_URL and serves them only there', async () => {
      const [message] = (await t.call(setup.account, { method: 'GET', url: `/outbox?campaign_id=${id}` })).json<{ html: string }[]>()
      const view = /https:\/\/content\.example\.net(\/t\/[^"]+\/view)/.exec(message!.html)?.[1]
      assert.ok(view, `a web version link at the content origin: ${message!.html}`)
      assert.match(message!.html, /https:\/\/news\.example\.org\/t\/[^"]+\/unsubscribe/, 'our own pages stay on the public URL')
      const permalink = new URL((await t.call(setup.account, { method: 'GET', url: `/campaigns/${id}` })).json<{ permalink: string }>().permalink)
      assert.equal(permalink.origin, CONTENT)
      for (const url of [view, permalink.pathname]) {
        const there = await t.app.inject({ method: 'GET', url, headers: { host: 'content.example.net' } })
        assert.equal(there.statusCode, 200, url)
        assert.match(String(there.headers['content-security-policy']), /sandbox/)
        const here = await t.app.inject({ method: 'GET', url, headers: { host: 'news.example.org' } })
        assert.equal(here.statusCode, 301, `${url} on the API origin`)
        assert.equal(here.headers.location, `${CONTENT}${url}`)
      }
    })
  })
}
