// CPU time of the processes serving a measurement, from /proc/<pid>/stat (user + system time of
// the process, all its threads: libuv's pool and V8's GC threads included), so a run can say how
// many CPU µs each process spends per request. Postgres: the client backends connected to the
// bench database (pg_stat_activity), when they are processes of this machine.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type pg from "pg";

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/**
 * utime + stime (clock ticks) from the text of /proc/<pid>/stat. The command name (field 2) is
 * in parentheses and may hold spaces and parentheses, so fields are counted after the last ")".
 */
export function parseStatTicks(stat: string): number {
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state): utime is field 14, stime field 15.
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`unreadable /proc stat: ${stat.slice(0, 80)}`);
  return utime + stime;
}

/** CPU time of a process in µs, or undefined when it is gone or not visible. */
export function cpuMicros(pid: number): number | undefined {
  try {
    return (parseStatTicks(readFileSync(`/proc/${pid}/stat`, "utf8")) * 1_000_000) / clockTicks();
  } catch {
    return undefined;
  }
}

export interface Watched {
  name: string;
  pid: number;
}

/** CPU µs by process name; "postgres" sums the backends by pid. */
export interface CpuSnapshot {
  processes: Record<string, number>;
  postgres: Map<number, number>;
  /** This process (the load generator), from process.cpuUsage(). */
  client: number;
}

export interface CpuMeter {
  snapshot(): Promise<CpuSnapshot>;
  /** CPU µs per request of each process between two snapshots. */
  perRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): Record<string, number>;
}

async function backendPids(admin: pg.Client | undefined, database: string | undefined): Promise<number[]> {
  if (!admin || !database) return [];
  const { rows } = await admin.query<{ pid: number }>("select pid from pg_stat_activity where datname = $1 and backend_type = 'client backend' and pid <> pg_backend_pid()", [database]);
  return rows.map((r) => r.pid);
}

/**
 * `processes` are read by pid; with `admin` (a connection to the server, not counted) and the
 * bench `database`, the server's backends for that database too.
 */
export function cpuMeter(processes: () => Watched[], admin?: pg.Client, database?: string): CpuMeter {
  return {
    async snapshot() {
      const snapshot: CpuSnapshot = { processes: {}, postgres: new Map(), client: process.cpuUsage().user + process.cpuUsage().system };
      for (const p of processes()) {
        const micros = cpuMicros(p.pid);
        if (micros !== undefined) snapshot.processes[p.name] = micros;
      }
      for (const pid of await backendPids(admin, database)) {
        const micros = cpuMicros(pid);
        if (micros !== undefined) snapshot.postgres.set(pid, micros);
      }
      return snapshot;
    },
    perRequest(before, after, requests) {
      return cpuPerRequest(before, after, requests);
    },
  };
}

/** CPU per unit of work of each process, less what it spends idle (heartbeats, polls, sweeps). */
export interface IdleCorrectedMeter {
  /** Measures each process's idle CPU over `seconds` of nothing: call it once, after a warm-up. */
  measureIdle(seconds: number): Promise<void>;
  /** Runs `work` (`units` of it, to its end) and answers µs per unit of each process, idle CPU of the same time taken out. */
  perUnit(units: number, work: () => Promise<void>): Promise<Record<string, number>>;
  /** What measureIdle found: µs per second of each process. */
  readonly idlePerSecond: Record<string, number>;
}

/**
 * The automation benches' measure (routing, rules, triage, outbreaks): what one ticket creation
 * costs each process with a feature on against off, where the processes' own idle work over a
 * batch of seconds would otherwise weigh as much as the feature.
 */
export function idleCorrectedMeter(meter: CpuMeter): IdleCorrectedMeter {
  let idlePerSecond: Record<string, number> = {};
  return {
    get idlePerSecond() {
      return idlePerSecond;
    },
    async measureIdle(seconds) {
      const before = await meter.snapshot();
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      const after = await meter.snapshot();
      idlePerSecond = Object.fromEntries(Object.entries(meter.perRequest(before, after, 1)).map(([name, micros]) => [name, micros / seconds]));
    },
    async perUnit(units, work) {
      const before = await meter.snapshot();
      const started = Date.now();
      await work();
      const after = await meter.snapshot();
      const seconds = (Date.now() - started) / 1000;
      const per = meter.perRequest(before, after, units);
      return Object.fromEntries(Object.entries(per).map(([name, micros]) => [name, Math.round(micros - ((idlePerSecond[name] ?? 0) * seconds) / units)]));
    },
  };
}

/**
 * µs per request of each process between two snapshots. A backend that appeared in between
 * counts from zero (its whole life is inside the window); one that disappeared is lost.
 */
export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): Record<string, number> {
  const per = (micros: number) => Math.round((micros / Math.max(1, requests)) * 10) / 10;
  const result: Record<string, number> = {};
  for (const [name, micros] of Object.entries(after.processes)) {
    const start = before.processes[name];
    if (start !== undefined) result[name] = per(micros - start);
  }
  if (after.postgres.size > 0) {
    let pg = 0;
    for (const [pid, micros] of after.postgres) pg += micros - (before.postgres.get(pid) ?? 0);
    result.postgres = per(pg);
  }
  result.client = per(after.client - before.client);
  return result;
}

/**
 * Batches of each kind in interleaved rounds (a, b, c, a, b, c, ...), and one more of the first
 * kind (the baseline) at the end: a drift of the machine then falls on every kind alike. Each
 * kind's batches, in order.
 */
export async function interleavedRounds<K extends string>(kinds: readonly [K, ...K[]], rounds: number, batch: (kind: K) => Promise<Record<string, number>>): Promise<Record<K, Record<string, number>[]>> {
  const samples = Object.fromEntries(kinds.map((kind) => [kind, [] as Record<string, number>[]])) as Record<K, Record<string, number>[]>;
  for (let round = 0; round < rounds; round += 1) {
    for (const kind of kinds) samples[kind].push(await batch(kind));
  }
  samples[kinds[0]].push(await batch(kinds[0]));
  return samples;
}

/** Per process, the mean of several batches' CPU per unit (rounded). */
export function meanPerProcess(batches: readonly Record<string, number>[]): Record<string, number> {
  const names = [...new Set(batches.flatMap((batch) => Object.keys(batch)))];
  return Object.fromEntries(names.map((name) => [name, Math.round(batches.reduce((total, batch) => total + (batch[name] ?? 0), 0) / batches.length)]));
}

/** Per process, how far apart several batches of the same work are (max - min): the noise of the measurement. */
export function spreadPerProcess(batches: readonly Record<string, number>[]): Record<string, number> {
  const names = [...new Set(batches.flatMap((batch) => Object.keys(batch)))];
  return Object.fromEntries(names.map((name) => {
    const values = batches.map((batch) => batch[name] ?? 0);
    return [name, Math.max(...values) - Math.min(...values)];
  }));
}

/**
 * CPU added over a baseline (µs per unit, per process, as meanPerProcess gives them): `added` of
 * one process, `sum` of several. What the automation benches report for a feature on against off.
 */
export function addedOver(baseline: Record<string, number>): { added(of: Record<string, number>, name: string): number; sum(of: Record<string, number>, names: readonly string[]): number } {
  const added = (of: Record<string, number>, name: string) => Math.round((of[name] ?? 0) - (baseline[name] ?? 0));
  return { added, sum: (of, names) => names.reduce((total, name) => total + added(of, name), 0) };
}
