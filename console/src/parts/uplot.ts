// uPlot with its stylesheet, as one chunk that time-chart.tsx loads when a chart is first shown: pages without a
// chart never download it.
import 'uplot/dist/uPlot.min.css'
export { default } from 'uplot'
