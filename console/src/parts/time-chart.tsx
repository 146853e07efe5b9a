// A line chart of counts over time (uPlot: ~20 KB gzipped, drawn on a canvas), loaded only by the pages that show
// one, with the same figures as a table under it: a canvas says nothing to a screen reader, and a reader may want
// the numbers. uPlot styles its elements through the CSSOM and its own stylesheet file, which the console's CSP
// (style-src 'self', no inline style attribute) allows.
import { useEffect, useRef } from 'preact/hooks'
import type uPlot from 'uplot'

export interface ChartSeries {
  label: string
  /** One value per time; null where there is none (drawn as a gap). */
  values: (number | null)[]
  /** A colour with at least 3:1 contrast on white (WCAG 1.4.11, non-text contrast). */
  color: string
}

export interface TimeChartProps {
  /** The figure's caption. */
  title: string
  /** Unix seconds, ascending, one per point. */
  times: number[]
  series: ChartSeries[]
  /** How the table names a time: a day, or an hour. */
  timeLabel?: (unixSeconds: number) => string
}

const HEIGHT = 240

/** A colour per series, in the order a chart names them; each has ≥ 3:1 contrast on white. */
export const SERIES_COLORS = ['#1d4ed8', '#047857', '#b45309', '#b91c1c', '#6d28d9', '#0e7490'] as const

const dayLabel = (unixSeconds: number) => new Date(unixSeconds * 1000).toLocaleDateString('en', { month: 'short', day: 'numeric', timeZone: 'UTC' })

export function TimeChart({ title, times, series, timeLabel = dayLabel }: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null)

  useEffect(() => {
    const element = box.current
    if (!element) return
    let chart: uPlot | undefined
    let cancelled = false
    const resize = new ResizeObserver(() => chart?.setSize({ width: element.clientWidth, height: HEIGHT }))
    void import('./uplot.js').then(({ default: UPlot }) => {
      if (cancelled) return
      chart = new UPlot(
        {
          width: element.clientWidth,
          height: HEIGHT,
          // Times are UTC days or hours: the labels must not shift with the reader's time zone.
          tzDate: (ts) => UPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
          series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: times.length < 60 } }))],
          axes: [{}, { size: 60 }],
          legend: { live: false },
        },
        [times, ...series.map((s) => s.values)],
        element,
      )
      resize.observe(element)
    })
    return () => {
      cancelled = true
      resize.disconnect()
      chart?.destroy()
    }
  }, [times, series])

  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      {/* The table below carries the same figures for assistive technology. */}
      <div ref={box} class="chart-canvas" aria-hidden="true" />
      <details>
        <summary>{title}: as a table</summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Time (UTC)</th>
                {series.map((s) => (
                  <th scope="col" key={s.label}>
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {times.map((time, i) => (
                <tr key={time}>
                  <th scope="row">{timeLabel(time)}</th>
                  {series.map((s) => (
                    <td key={s.label} data-label={s.label}>
                      {s.values[i]?.toLocaleString('en') ?? '—'}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  )
}
