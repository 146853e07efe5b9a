// What a PostgreSQL database's client backends are doing, sampled from pg_stat_activity while a benchmark runs: on
// the CPU (active, no wait event), waiting for a lock (and on which statement), for I/O (the WAL flush of a commit),
// or idle in a transaction while the client works. The mean number of backends in each state over the samples says
// where the database's time goes; "Lock" with the campaign row's `for update` is the recording's serialization.
import pg from 'pg'

export interface ActivityShare {
  /** `cpu`, `Lock:transactionid`, `IO:WALSync`, `idle in transaction`, … */
  state: string
  /** Mean backends in that state over the samples. */
  backends: number
  /** The statements most often seen in that state (the first 70 characters), with their mean backends. */
  statements: { query: string; backends: number }[]
}

export interface ActivitySampler {
  stop(): Promise<{ samples: number; states: ActivityShare[] }>
}

/** Samples the database of `url` every `everyMs` from its own connection, until stop(). */
export async function sampleActivity(url: string, everyMs = 50): Promise<ActivitySampler> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const counts = new Map<string, { total: number; queries: Map<string, number> }>()
  let samples = 0
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await client.query<{ state: string | null; wait_event_type: string | null; wait_event: string | null; query: string }>(
        `select state, wait_event_type, wait_event, left(regexp_replace(query, '\\s+', ' ', 'g'), 70) as query
           from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`,
      )
      samples++
      for (const row of rows) {
        if (row.state === 'idle') continue
        const state =
          row.state === 'active' ? (row.wait_event_type ? `${row.wait_event_type}:${row.wait_event}` : 'cpu') : row.state === 'idle in transaction' ? 'idle in transaction (client working)' : String(row.state)
        const entry = counts.get(state) ?? { total: 0, queries: new Map<string, number>() }
        entry.total++
        entry.queries.set(row.query, (entry.queries.get(row.query) ?? 0) + 1)
        counts.set(state, entry)
      }
      await new Promise((r) => setTimeout(r, everyMs))
    }
  })()
  return {
    stop: async () => {
      stopped = true
      await loop
      await client.end()
      const n = Math.max(1, samples)
      const states = [...counts]
        .map(([state, { total, queries }]) => ({
          state,
          backends: total / n,
          statements: [...queries]
            .sort((a, b) => b[1] - a[1])
            .slice(0, 3)
            .map(([query, c]) => ({ query, backends: c / n })),
        }))
        .sort((a, b) => b.backends - a.backends)
      return { samples, states }
    },
  }
}
