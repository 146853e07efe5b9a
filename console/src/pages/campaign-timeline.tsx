// A campaign's first opens and first clicks per UTC hour or day (the Tidings extension GET /campaigns/{id}/timeline,
// which gives only the buckets that have any), drawn by TimeChart with the empty buckets between them as zeros.
import { useMemo, useState } from 'preact/hooks'
import { api } from '../api.js'
import { Messages, usePageState } from '../parts/page-state.js'
import { SERIES_COLORS, TimeChart, type ChartSeries } from '../parts/time-chart.js'

interface Bucket {
  time: string
  opens: number
  clicks: number
}

type Size = 'hour' | 'day'
const SECONDS: Record<Size, number> = { hour: 3600, day: 86_400 }
/** The API's largest answer: when it is full, later buckets exist. */
const MAX_BUCKETS = 1000

const hourLabel = (unixSeconds: number) =>
  new Date(unixSeconds * 1000).toLocaleString('en', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' })
const dayLabel = (unixSeconds: number) => new Date(unixSeconds * 1000).toLocaleDateString('en', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' })

/** Unix seconds of the API's `YYYY-MM-DD HH:MM:SS` (UTC). */
const secondsOf = (wire: string) => Date.parse(`${wire.replace(' ', 'T')}Z`) / 1000

/** One point per bucket from the first to the last, zero where the API gave none. */
export function denseSeries(buckets: Bucket[], size: Size): { times: number[]; opens: number[]; clicks: number[] } {
  const out = { times: [] as number[], opens: [] as number[], clicks: [] as number[] }
  const first = buckets[0]
  const last = buckets.at(-1)
  if (!first || !last) return out
  const given = new Map(buckets.map((b) => [secondsOf(b.time), b]))
  for (let at = secondsOf(first.time); at <= secondsOf(last.time); at += SECONDS[size]) {
    const bucket = given.get(at)
    out.times.push(at)
    out.opens.push(bucket?.opens ?? 0)
    out.clicks.push(bucket?.clicks ?? 0)
  }
  return out
}

export function CampaignTimeline({ campaignId }: { campaignId: number }) {
  const [size, setSize] = useState<Size>('hour')
  // The buckets with their size: while the next size loads, the chart shown keeps its own labels.
  const timeline = usePageState(async () => ({ size, buckets: await api<Bucket[]>('GET', `/campaigns/${campaignId}/timeline?bucket=${size}`) }), [size])
  const chart = useMemo(() => {
    if (!timeline.data) return undefined
    const dense = denseSeries(timeline.data.buckets, timeline.data.size)
    const series: ChartSeries[] = [
      { label: 'Opens', values: dense.opens, color: SERIES_COLORS[0] },
      { label: 'Clicks', values: dense.clicks, color: SERIES_COLORS[1] },
    ]
    return { size: timeline.data.size, full: timeline.data.buckets.length === MAX_BUCKETS, times: dense.times, series }
  }, [timeline.data])

  return (
    <>
      <h3>Opens and clicks over time</h3>
      <div class="field timeline-size">
        <label for="timeline-size">Per</label>
        <select id="timeline-size" value={size} onChange={(event) => setSize((event.currentTarget as HTMLSelectElement).value as Size)}>
          <option value="hour">Hour (UTC)</option>
          <option value="day">Day (UTC)</option>
        </select>
      </div>
      <Messages state={timeline} />
      {chart &&
        (chart.times.length === 0 ? (
          <p>No opens or clicks yet.</p>
        ) : (
          <>
            <TimeChart title={`First opens and clicks per ${chart.size} (UTC)`} times={chart.times} series={chart.series} timeLabel={chart.size === 'hour' ? hourLabel : dayLabel} />
            {chart.full && <p class="muted">The first {MAX_BUCKETS} {chart.size}s with opens or clicks are shown.</p>}
          </>
        ))}
    </>
  )
}
