// The SMTP client that writes each message straight into a connection kept open (smtp-session.ts, smtp-pool.ts),
// against a real smtp-server on loopback: one round trip a message (the next envelope leaves with the data of
// the one before, RFC 2920), lines starting with '.' arrive as written, refused recipients leave the connection
// usable, STARTTLS is used when offered, and a connection cut in the middle of a message loses nothing: that
// message is tried again later, the one whose envelope was pipelined behind it goes once, on a new connection.
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import type { AddressInfo, Socket } from 'node:net'
import { SMTPServer, type SMTPServerOptions } from 'smtp-server'
import { simpleParser } from 'mailparser'
import { dkimVerify } from 'mailauth'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { campaignSetup, campaignStatus, createCampaign, dispatcher } from '../../helpers/campaigns.js'
import { smtpChannel } from '../../../src/delivery/email/smtp.js'
import type { EmailChannel, OutboundEmail } from '../../../src/delivery/channel.js'

interface Relay {
  url: string
  /** Messages accepted, as received. */
  accepted: { to: string; raw: Buffer }[]
  /** What the relay read from each connection, chunk by chunk, in order (plain connections). */
  chunks: string[]
  connections: number
  /** Answer for a recipient: undefined accepts it. */
  refuse: (to: string) => { code: number; message: string } | undefined
  /** Cut the connection as the first bytes of the data for this recipient come in, once. */
  cutDuring: string | undefined
  logins: { user: string; secure: boolean }[]
  close(): Promise<void>
}

async function startRelay(options: Partial<SMTPServerOptions> = {}): Promise<Relay> {
  const sockets = new Set<Socket>()
  const relay: Relay = { url: '', accepted: [], chunks: [], connections: 0, refuse: () => undefined, cutDuring: undefined, logins: [], close: async () => {} }
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    ...options,
    onAuth(auth, session, callback) {
      relay.logins.push({ user: auth.username ?? '', secure: session.secure })
      callback(null, { user: auth.username })
    },
    onRcptTo(address, _session, callback) {
      const refusal = relay.refuse(address.address)
      callback(refusal && Object.assign(new Error(refusal.message), { responseCode: refusal.code }))
    },
    onData(stream, session, callback) {
      const to = session.envelope.rcptTo[0]?.address ?? ''
      const parts: Buffer[] = []
      let cut = false
      stream.on('data', (chunk: Buffer) => {
        parts.push(chunk)
        if (relay.cutDuring === to) {
          relay.cutDuring = undefined
          cut = true
          for (const socket of sockets) if (socket.remotePort === session.remotePort) socket.destroy()
        }
      })
      // A message is the relay's once it answered 250; one whose connection it cut was never taken.
      stream.on('end', () => {
        if (cut) return
        relay.accepted.push({ to, raw: Buffer.concat(parts) })
        callback()
      })
    },
  })
  server.on('error', () => {})
  server.server.on('connection', (socket: Socket) => {
    relay.connections++
    sockets.add(socket)
    socket.on('data', (chunk: Buffer) => relay.chunks.push(chunk.toString('latin1')))
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  relay.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`
  relay.close = () => new Promise<void>((resolve) => server.close(() => resolve()))
  return relay
}

const email = (to: string, fields: Partial<OutboundEmail> = {}): OutboundEmail => ({
  from: { email: 'news@example.org', name: 'News' },
  to,
  subject: `For ${to}`,
  html: `<p>Hello ${to}</p>`,
  text: `Hello ${to}`,
  ...fields,
})

describe('the pipelined SMTP client', () => {
  let relay: Relay
  let channel: EmailChannel
  before(async () => {
    relay = await startRelay()
  })
  after(() => relay.close())
  beforeEach(() => {
    relay.refuse = () => undefined
    relay.chunks.length = 0
    relay.connections = 0
  })

  const oneConnection = () => (channel = smtpChannel({ url: `${relay.url}?maxConnections=1` }))
  const closeChannel = () => channel?.close()

  it('sends the next envelope with the data of the message before: one round trip a message', async () => {
    oneConnection()
    try {
      const addresses = ['p1@example.com', 'p2@example.com', 'p3@example.com', 'p4@example.com']
      const results = await channel.send(addresses.map((to) => email(to)))
      assert.deepEqual(results.map((r) => r.ok), [true, true, true, true])
      assert.equal(relay.connections, 1)
      // The end of a message's data and the whole envelope of the next one arrive in one read.
      const together = relay.chunks.filter((c) => /\r\n\.\r\nMAIL FROM:<[^>]+>\r\nRCPT TO:<p\d@example\.com>\r\nDATA\r\n$/.test(c))
      assert.equal(together.length, 3, relay.chunks.map((c) => JSON.stringify(c.slice(-80))).join('\n'))
      for (const to of addresses) assert.equal(relay.accepted.filter((m) => m.to === to).length, 1, to)
    } finally {
      await closeChannel()
    }
  })

  it('refuses a recipient that would smuggle an SMTP command into the envelope, and sends the others', async () => {
    oneConnection()
    try {
      const smuggled = 'a@example.com>\r\nRCPT TO:<victim@example.net'
      const acceptedBefore = relay.accepted.length
      const results = await channel.send([email(smuggled), email('p1@example.com')])
      assert.equal(results[0]!.ok, false)
      assert.equal(results[0]!.ok === false && results[0]!.retryable, false)
      assert.equal(results[1]!.ok, true)
      assert.ok(!relay.chunks.join('').includes('victim@example.net'), 'the smuggled command reached the relay')
      assert.deepEqual(relay.accepted.slice(acceptedBefore).map((m) => m.to), ['p1@example.com'])
    } finally {
      await closeChannel()
    }
  })

  it("delivers lines that start with '.' as they were written (they are never taken for the end of the data)", async () => {
    oneConnection()
    try {
      const text = ['.', '..', '.leading dot', 'middle . dot', '...'].join('\n')
      const html = `<pre>\n.\n..two\n</pre>\n.`
      const [result] = await channel.send([email('dots@example.com', { text, html, subject: '.dot' })])
      assert.equal(result?.ok, true)
      const mail = await simpleParser(relay.accepted.find((m) => m.to === 'dots@example.com')!.raw)
      assert.equal(mail.text, text)
      assert.equal(mail.html, html)
      assert.equal(mail.subject, '.dot')
    } finally {
      await closeChannel()
    }
  })

  it('answers each recipient on one pipelined connection: refused ones fail, the connection goes on (RSET)', async () => {
    oneConnection()
    relay.refuse = (to) => (to === 'gone@example.com' ? { code: 550, message: '5.1.1 No such user' } : to === 'busy@example.com' ? { code: 451, message: '4.3.0 Try again later' } : undefined)
    try {
      const results = await channel.send(['r1@example.com', 'gone@example.com', 'busy@example.com', 'r2@example.com'].map((to) => email(to)))
      assert.deepEqual(results, [
        { ok: true, providerId: results[0]!.ok ? results[0]!.providerId : '' },
        { ok: false, retryable: false, code: 550, reason: '550 5.1.1 No such user' },
        { ok: false, retryable: true, code: 451, reason: '451 4.3.0 Try again later' },
        { ok: true, providerId: results[3]!.ok ? results[3]!.providerId : '' },
      ])
      assert.equal(relay.connections, 1, 'one connection for all')
      assert.deepEqual(relay.accepted.filter((m) => /^r\d@/.test(m.to)).map((m) => m.to), ['r1@example.com', 'r2@example.com'])
    } finally {
      await closeChannel()
    }
  })

  it('cut in the middle of a message: that one fails as temporary, the one pipelined behind it goes once on a new connection', async () => {
    oneConnection()
    relay.cutDuring = 'cut@example.com'
    try {
      // Large enough to come in several reads: the relay cuts at the first.
      const big = 'A line of a long newsletter that fills many packets.\n'.repeat(20_000)
      const results = await channel.send([email('before@example.com'), email('cut@example.com', { text: big }), email('after@example.com')])
      assert.equal(results[0]?.ok, true)
      assert.deepEqual(results[1] && !results[1].ok && [results[1].retryable, results[1].code], [true, undefined])
      assert.equal(results[2]?.ok, true)
      assert.equal(relay.connections, 2)
      assert.deepEqual(relay.accepted.filter((m) => ['before@example.com', 'cut@example.com', 'after@example.com'].includes(m.to)).map((m) => m.to), ['before@example.com', 'after@example.com'])
    } finally {
      await closeChannel()
    }
  })
})

describe('the SMTP client with STARTTLS and AUTH', () => {
  let relay: Relay
  before(async () => {
    // smtp-server's own self-signed certificate: the URL accepts it (tls.rejectUnauthorized=false).
    relay = await startRelay({ disabledCommands: [], authOptional: false })
  })
  after(() => relay.close())

  it('upgrades with STARTTLS before sending the password, then delivers', async () => {
    const channel = smtpChannel({ url: `${relay.url.replace('smtp://', 'smtp://user:secret@')}?tls.rejectUnauthorized=false` })
    try {
      const results = await channel.send([email('tls1@example.com'), email('tls2@example.com')])
      assert.deepEqual(results.map((r) => r.ok), [true, true])
      assert.ok(relay.logins.length > 0)
      assert.deepEqual(new Set(relay.logins.map((l) => `${l.user} secure=${l.secure}`)), new Set(['user secure=true']))
    } finally {
      await channel.close()
    }
  })
})

describe('DKIM on messages written straight into the connection', () => {
  let relay: Relay
  before(async () => {
    relay = await startRelay()
  })
  after(() => relay.close())

  it('verifies with an independent verifier (mailauth), dots, runs of spaces and non-ASCII included', async () => {
    const keys = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'der' } })
    const channel = smtpChannel({ url: relay.url, dkim: { domainName: 'example.org', keySelector: 'k1', privateKey: keys.privateKey } })
    const resolver = async (name: string, type: string) => {
      if (name === 'k1._domainkey.example.org' && type === 'TXT') return [[`v=DKIM1; k=rsa; p=${keys.publicKey.toString('base64')}`]]
      throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' })
    }
    try {
      const text = '.\n..  two   spaces  \n\ttabbed\t\nПривіт  ✓\n\n\n'
      const [result] = await channel.send([email('signed@example.com', { text, html: `<p>   ${text}</p>\n.\n`, subject: 'Привіт  .' })])
      assert.equal(result?.ok, true)
      const { results } = await dkimVerify(relay.accepted.find((m) => m.to === 'signed@example.com')!.raw, { resolver })
      assert.deepEqual(results.map((r) => [r.status.result, r.signingDomain]), [['pass', 'example.org']], results[0]?.status.comment)
    } finally {
      await channel.close()
    }
  })
})

for (const dialect of DIALECTS) {
  describe(`a campaign through a relay that cuts a connection mid-message on ${dialect}`, () => {
    let t: TestApp
    let relay: Relay
    before(async () => {
      t = await startTestApp(dialect, { campaignsPerHour: 100 })
      relay = await startRelay()
    })
    after(async () => {
      await relay.close()
      await t.close()
    })

    it('loses nothing and sends nothing twice: the cut message is retried, the others go once', async () => {
      const setup = await campaignSetup(t, 30)
      relay.cutDuring = setup.emails[12]
      const id = (await createCampaign(t, setup)).json<{ id: number }>().id
      const channel = smtpChannel({ url: `${relay.url}?maxConnections=3` })
      try {
        const d = dispatcher(t, channel)
        await d.drain()
        assert.equal(relay.cutDuring, undefined, 'the relay cut a connection')
        const waiting = await t.deps.db.selectFrom('messages').select(['address', 'status']).where('campaign_id', '=', id).where('status', '!=', 2).execute()
        assert.deepEqual(waiting, [{ address: setup.emails[12], status: 7 }], 'only the cut message waits for its retry')
        t.clock.advance(60_000)
        await d.drain()
      } finally {
        await channel.close()
      }
      assert.equal(await campaignStatus(t, setup, id), 3)
      for (const to of setup.emails) assert.equal(relay.accepted.filter((m) => m.to === to).length, 1, to)
    })
  })
}
