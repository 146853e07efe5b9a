// Dates on the SendPulse wire: `YYYY-MM-DD HH:MM:SS` in UTC (the Go SDK rejects ISO-8601 with T/Z).

/** Formats epoch milliseconds as `YYYY-MM-DD HH:MM:SS` UTC. */
export function toWireDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ')
}

/** The Go SDK sends this when a date is unset: it means "not given". */
export const GO_ZERO_DATE = '0001-01-01 00:00:00'
