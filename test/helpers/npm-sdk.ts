// The real npm SDK (`sendpulse-api` 1.1.7), unchanged, against a listening test server. The SDK talks HTTPS
// to api.sendpulse.com:443 with no base-URL option, so its `https.request` is sent to 127.0.0.1 over HTTP.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import http from 'node:http'
import type { RequestOptions } from 'node:https'
import type { Dialect } from '../../src/storage/db.js'
import type { Config } from '../../src/config/schema.js'
import { startTestApp, type TestApp } from './app.js'
import type { TestAccount } from './factories.js'

const require = createRequire(import.meta.url)
// The very object the SDK's `require('https')` returns: patching it redirects the SDK.
const https = require('node:https') as { request: (options: RequestOptions, callback?: (res: http.IncomingMessage) => void) => http.ClientRequest }

export type Callback = (answer: unknown) => void

/** The SDK's methods; each takes the callback first. Only the ones the tests drive are named. */
export type SdkMethod = (callback: Callback, ...args: never[]) => void

export interface SendpulseSdk {
  init(clientId: string, secret: string, storage: string, callback: Callback): void
  [method: string]: SdkMethod | SendpulseSdk['init']
}

/** A fresh copy of the SDK: it keeps the token and credentials in module-level variables. */
export function loadSdk(): SendpulseSdk {
  for (const path of [require.resolve('sendpulse-api'), require.resolve('sendpulse-api/api/sendpulse.js')]) delete require.cache[path]
  return require('sendpulse-api') as SendpulseSdk
}

/** Calls an SDK method and resolves with what reaches its callback. */
export function call<T = unknown>(method: SdkMethod | SendpulseSdk['init'] | undefined, ...args: unknown[]): Promise<T> {
  assert.ok(method, 'the SDK has this method')
  return new Promise((resolve) => (method as (callback: Callback, ...rest: unknown[]) => void)(resolve as Callback, ...args))
}

/** The name of the SDK's token cache file: md5(client_id + '::' + secret) in its storage directory. */
export function tokenFile(storage: string, account: TestAccount): string {
  return join(storage, createHash('md5').update(`${account.clientId}::${account.clientSecret}`).digest('hex'))
}

export interface Exchange {
  method: string
  path: string
  status: number
  body: string
  /** Sent on a kept-alive connection that already carried a request. */
  reused: boolean
}

/** A guard against the SDK asking forever (it retries every 401 without limit). */
const MAX_REQUESTS_PER_TEST = 20

export interface SdkHarness {
  testApp: TestApp
  account: TestAccount
  sdk: SendpulseSdk
  /** The SDK's token cache directory. */
  storage: string
  /** Every request the SDK made since the last reset. */
  exchanges: Exchange[]
  /** `METHOD /path STATUS` of each exchange. */
  paths(): string[]
  /** Gets a token with init(), as every SDK user does first. */
  init(): Promise<unknown>
  /**
   * A request built exactly as the SDK's sendRequest() builds every call (a JSON body, even on GET, and the
   * cached token), for routes sendpulse-api 1.1.7 has no method for. Resolves with the status and the body.
   */
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }>
  close(): Promise<void>
}

/** A listening server on `dialect`, an account, and the SDK redirected to the server. */
export async function startSdkHarness(dialect: Dialect, overrides: Partial<Config> = {}): Promise<SdkHarness> {
  const testApp = await startTestApp(dialect, overrides)
  const account = await testApp.account()
  const address = await testApp.app.listen({ port: 0, host: '127.0.0.1' })
  const port = Number(new URL(address).port)
  // Keep-alive, like Node's default agent: the SDK's GET bodies must be read or the next request breaks.
  const agent = new http.Agent({ keepAlive: true })
  const originalRequest = https.request
  const exchanges: Exchange[] = []
  https.request = (options, callback) => {
    assert.equal(options.hostname, 'api.sendpulse.com', 'the SDK talks to its fixed host')
    assert.equal(options.port, 443)
    const request = http.request({ ...options, hostname: '127.0.0.1', port, agent }, callback)
    const exchange: Exchange = { method: String(options.method), path: String(options.path), status: 0, body: '', reused: false }
    exchanges.push(exchange)
    if (exchanges.length > MAX_REQUESTS_PER_TEST) request.destroy(new Error('the SDK keeps asking: stopped by the test'))
    request.on('response', (response) => {
      exchange.status = response.statusCode ?? 0
      exchange.reused = request.reusedSocket
      response.on('data', (chunk: Buffer) => (exchange.body += chunk.toString()))
    })
    return request
  }
  const storage = mkdtempSync(join(tmpdir(), 'tidings-npm-sdk-'))
  const sdk = loadSdk()
  return {
    testApp,
    account,
    sdk,
    storage,
    exchanges,
    paths: () => exchanges.map((e) => `${e.method} ${e.path} ${e.status}`),
    init: () => call((cb: Callback) => sdk.init(account.clientId, account.clientSecret, storage, cb)),
    request: (method, path, body = {}) => sdkStyleRequest(readFileSync(tokenFile(storage, account), 'utf8'), method, path, body),
    close: async () => {
      https.request = originalRequest
      agent.destroy()
      rmSync(storage, { recursive: true, force: true })
      await testApp.close()
    },
  }
}

function sdkStyleRequest(token: string, method: string, path: string, body: unknown): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        path,
        port: 443,
        hostname: 'api.sendpulse.com',
        method,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload), Authorization: `Bearer ${token}` },
      },
      (response) => {
        let text = ''
        response.on('data', (chunk: Buffer) => (text += chunk.toString()))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }))
      },
    )
    request.on('error', reject)
    request.end(payload)
  })
}
