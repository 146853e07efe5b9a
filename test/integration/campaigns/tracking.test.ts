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
      assert.match(page.body, /<form method="post">/)
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
  })
}
