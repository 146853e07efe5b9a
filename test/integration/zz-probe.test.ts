import { it } from 'node:test'
import { connect } from 'node:net'
import { startTestApp } from '../helpers/app.js'
it('probe', async () => {
  const t = await startTestApp('sqlite')
  const account = await t.account()
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = new URL(address)
  const request = (body: string) =>
    `GET /addressbooks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${account.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
  for (const end of [true, false]) {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => end ? socket.end(request('{"limit":1}') + request('{}')) : socket.write(request('{"limit":1}') + request('{}')))
      let data = ''
      socket.on('data', (chunk) => { data += chunk.toString(); if (!end && (data.match(/HTTP\/1\.1/g) ?? []).length === 2) setTimeout(() => { socket.destroy(); resolve(data) }, 100) })
      socket.on('end', () => resolve(data))
      socket.on('error', reject)
      setTimeout(() => { socket.destroy(); resolve(data) }, 4000)
    })
    console.log('end=' + end, JSON.stringify(raw.match(/^HTTP\/1\.1 \d+/gm)))
  }
  await t.close()
})
