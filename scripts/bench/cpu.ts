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
