// What /proc says about a process and the machine (Linux only; null elsewhere): resident memory, CPU time of a
// process (all its threads), and the CPU time the whole machine spent busy, to tell how much of it went to
// other jobs while a benchmark ran.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'

/** The resident set size of a running process in MiB (VmRSS in /proc/<pid>/status). */
export function rssMiB(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : null
  } catch {
    return null
  }
}

let clockTicks: number | undefined

function ticksPerSecond(): number {
  clockTicks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100
  return clockTicks
}

/** User + system CPU time of a process, all its threads, in seconds (/proc/<pid>/stat). */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond()
  } catch {
    return null
  }
}

export interface MachineCpu {
  /** CPU seconds spent busy by every core together (user, nice, system, irq, softirq). */
  busySeconds: number
  /** CPU seconds the hypervisor gave to other virtual machines while this one wanted to run. */
  stealSeconds: number
  /** CPU seconds of every core together, idle and iowait included. */
  totalSeconds: number
}

/** The machine's CPU time so far, from the first line of /proc/stat. */
export function machineCpu(): MachineCpu | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest time is inside user already)
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1, 9).map(Number) as number[]
    const busy = user! + nice! + system! + irq! + softirq!
    const ticks = ticksPerSecond()
    return { busySeconds: busy / ticks, stealSeconds: (steal ?? 0) / ticks, totalSeconds: (busy + (steal ?? 0) + idle! + iowait!) / ticks }
  } catch {
    return null
  }
}

/** The 1-minute load average. */
export function load1(): number {
  return loadavg()[0] ?? 0
}
