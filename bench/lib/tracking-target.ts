// One database's tracking target of bench:api: a campaign of `count` messages sent into the capture channel by one
// server, then a fresh server (its CPU profile holds the hits alone) loaded with each kind of hit in rounds that
// alternate with the reference. Stopped (a clean shutdown) and started once more, the server must count every
// hit it answered.
import { json } from './http.js'
import { run } from './processes.js'
import { latestProfile, summariseProfile, type ProfileSummary } from './cpu-profile.js'
import { captureSendingEnv, sendTrackedCampaign, type TrackedMessage } from './sent-campaign.js'
import { hitTarget, loadInRounds, type HitKind, type HitLoad, type HitTarget } from './tracking-hits.js'
import { authorization, createBenchDatabase, startServer, type BenchAccount, type Dialect, type TidingsServer } from './tidings.js'
import { fmt } from './env.js'

export interface TrackingResult {
  kind: HitKind
  tidings: HitLoad
  /** The reference's rounds, taken between Tidings' */
  bare?: HitLoad
  /** The server's CPU profile over Tidings' rounds (BENCH_PROFILE=1) */
  profile?: ProfileSummary
}

export async function benchTrackingTarget(
  dialect: Dialect,
  o: { count: number; kinds: readonly HitKind[]; bare?: HitTarget; logLevel: string; profile: boolean; rounds: number; roundSeconds: number; warmup: number; connections: number },
): Promise<TrackingResult[]> {
  const created = await createBenchDatabase(dialect, o.logLevel)
  const database = { ...created, env: captureSendingEnv(created.env) }
  const label = dialect === 'sqlite' ? 'Tidings, SQLite' : 'Tidings, PostgreSQL'
  let server: TidingsServer | undefined
  try {
    const account = JSON.parse(run('node', ['bin/tidings.js', 'accounts', 'create', '--name', 'bench-tracking', '--balance', '1000000'], database.env)) as BenchAccount
    server = await startServer(database, `tracking-setup-${dialect}`)
    let started = performance.now()
    const messages = await sendTrackedCampaign(database, account, server.base, await authorization(server.base, account), o.count)
    console.log(`${label}: a campaign of ${fmt(messages.length, 0)} messages sent and read back in ${fmt((performance.now() - started) / 1000, 1)} s`)
    await server.stop()

    const profileName = `tracking-${dialect}`
    started = performance.now()
    server = await startServer(database, profileName)
    const tidings = hitTarget(server.base, server.child.process.pid!, messages)
    const results: (TrackingResult & { windows: { from: number; to: number } })[] = []
    for (const kind of o.kinds) {
      const from = (performance.now() - started) / 1000
      console.log(`measuring ${label}${o.bare ? ' and the reference, in turns' : ''}: ${kind}, ${fmt(messages.length, 0)} distinct tokens, ${o.rounds} rounds of ${o.roundSeconds} s`)
      const loads = await loadInRounds(kind, { tidings, bare: o.bare }, o)
      results.push({ kind, tidings: loads.tidings!, bare: loads.bare, windows: { from, to: (performance.now() - started) / 1000 } })
      printLoad(label, loads.tidings!)
      if (loads.bare) printLoad('bare Fastify 5 (no auth, no DB)', loads.bare)
    }
    await server.stop()
    server = await startServer(database, `tracking-check-${dialect}`)
    await expectRecorded(server.base, await authorization(server.base, account), tidings)
    // The profile covers the whole load of a kind, the reference's rounds too: the server idles through those.
    if (o.profile) for (const r of results) r.profile = summariseProfile(latestProfile(profileName), r.windows)
    return results
  } finally {
    await server?.stop()
    await database.drop()
  }
}

function printLoad(label: string, l: HitLoad): void {
  console.log(
    `  ${label}: ${fmt(l.reqPerSec, 0)} req/s (rounds ${l.rounds.map((r) => fmt(r, 0)).join(', ')}), server CPU ${l.cpuMicrosPerRequest === null ? '?' : fmt(l.cpuMicrosPerRequest, 0)} µs a request, p50 ${fmt(l.latency.p50, 2)} ms, p99 ${fmt(l.latency.p99, 2)} ms, ` +
      `errors ${l.errors}, wrong answers ${l.wrong}${l.firstWrong ? ` (first: ${l.firstWrong})` : ''}`,
  )
}

/**
 * After a clean shutdown every answered hit is counted: the clicks of link 0 (GET /campaigns/{id}/referrals) lie
 * between the clicks answered and those sent, and each message whose pixel or link was answered is opened. Hits go
 * round robin from the first message, so exactly the first min(N, answered) messages were hit.
 */
async function expectRecorded(base: string, headers: Record<string, string>, target: HitTarget): Promise<void> {
  const messages: readonly TrackedMessage[] = target.messages
  const campaigns = await json<{ id: number }[]>(`${base}/campaigns?limit=1`, { headers })
  const id = campaigns[0]!.id
  const { pixel, click } = target.sent
  if (click.built > 0) {
    const referrals = await json<{ count: number }[]>(`${base}/campaigns/${id}/referrals`, { headers })
    const counted = referrals.reduce((n, r) => n + r.count, 0)
    if (counted < click.answered || counted > click.built) throw new Error(`${counted} clicks counted; ${click.answered} were answered, ${click.built} sent`)
  }
  const detail = await json<{ statistics: { general: { code: number; count: number }[] } }>(`${base}/campaigns/${id}`, { headers })
  const count = (code: number) => detail.statistics.general.find((g) => g.code === code)?.count ?? 0
  const opened = count(3) + count(4)
  const answered = Math.min(messages.length, Math.max(pixel.answered, click.answered))
  const sent = Math.min(messages.length, Math.max(pixel.built, click.built))
  if (opened < answered || opened > sent) throw new Error(`${opened} messages opened; ${answered} hit and answered, ${sent} sent`)
  console.log(`  recorded after a clean shutdown: ${fmt(opened, 0)} messages opened${click.built > 0 ? `, clicks counted within [${click.answered}, ${click.built}]` : ''}`)
}
