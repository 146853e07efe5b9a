// What /proc says about a process and the machine (Linux only; null elsewhere): resident memory, CPU time of a
// process (all its threads), and the CPU time the whole machine spent busy, to tell how much of it went to
// other jobs while a benchmark ran.
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
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

/**
 * User + system CPU time of a process and every live process under it (children, theirs …: the servers, a
 * stand-in, an embedded PostgreSQL and its backends), in seconds; null off Linux.
 */
export function treeCpuSeconds(rootPid: number): number | null {
  try {
    const stats = new Map<number, { parent: number; cpu: number }>()
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        stats.set(Number(entry), { parent: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / ticksPerSecond() })
      } catch {
        // gone meanwhile
      }
    }
    const inTree = (pid: number): boolean => {
      for (let p: number | undefined = pid, depth = 0; p !== undefined && p > 1 && depth < 64; p = stats.get(p)?.parent, depth++) if (p === rootPid) return true
      return false
    }
    let sum = 0
    for (const [pid, { cpu }] of stats) if (inTree(pid)) sum += cpu
    return sum
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

/**
 * CPU seconds of the processes named `name` under `rootPid` (an embedded PostgreSQL: its postmaster and every
 * backend), the time of their exited children included (a backend that closed is counted in its postmaster's
 * cutime/cstime once reaped), so the difference between two readings is what the database spent meanwhile; null off
 * Linux or when none runs there (a PostgreSQL of TIDINGS_TEST_DATABASE_URL is not this run's child).
 */
export function namedTreeCpuSeconds(rootPid: number, name: string): number | null {
  try {
    const stats = new Map<number, { parent: number; comm: string; cpu: number }>()
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        // utime, stime, cutime, cstime: fields 14–17
        const cpu = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) / ticksPerSecond()
        stats.set(Number(entry), { parent: Number(fields[1]), comm, cpu })
      } catch {
        // gone meanwhile
      }
    }
    const inTree = (pid: number): boolean => {
      for (let p: number | undefined = pid, depth = 0; p !== undefined && p > 1 && depth < 64; p = stats.get(p)?.parent, depth++) if (p === rootPid) return true
      return false
    }
    let sum = 0
    let found = false
    for (const [pid, s] of stats) {
      if (s.comm !== name || !inTree(pid)) continue
      sum += s.cpu
      found = true
    }
    return found ? sum : null
  } catch {
    return null
  }
}
