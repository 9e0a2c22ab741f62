// Small network and process helpers shared by the resolvers and scripts/up.ts.
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** True when something accepts a TCP connection on host:port within `timeoutMs`. */
export function tcpAnswers(host: string, port: number, timeoutMs = 300): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs);
    socket.once("connect", () => done(true));
    socket.once("timeout", () => done(false));
    socket.once("error", () => done(false));
    socket.connect(port, host);
  });
}

/**
 * A TCP port that was free on 127.0.0.1 a moment ago, for a server started a little later.
 *
 * Chosen below the kernel's ephemeral range (Linux: net.ipv4.ip_local_port_range, 32768-60999 by
 * default): a port from that range, even one just seen free, can be taken by any outgoing
 * connection of any process (a pg or NATS client, a fetch) before the server binds it, which
 * made a busy machine's test runs fail with EADDRINUSE. Below the range only another server can
 * take it, and ports are drawn at random and checked, so two runs rarely meet.
 */
export async function freePort(): Promise<number> {
  const [low, high] = belowEphemeralRange();
  // Half the range at most: past it the oldest are forgotten (their servers long started).
  if (handedOut.size > (high - low) / 2) handedOut.clear();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    // Taken before the check, so that a call made meanwhile cannot draw it too.
    handedOut.add(port);
    if (await portIsFree(port)) return port;
  }
  return anyFreePort();
}

/**
 * The ports this process was given: a port handed out is free until its server binds it, so a
 * second draw in between (a stack choosing a port for each of its processes) could otherwise
 * return it again, and one of the two servers would fail with EADDRINUSE.
 */
const handedOut = new Set<number>();

/** The range freePort draws from: 20000 up to the start of the ephemeral range (at least 1000 ports). */
function belowEphemeralRange(): [number, number] {
  let ephemeralLow = 32768;
  try {
    ephemeralLow = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || ephemeralLow;
  } catch {
    // Not Linux: the IANA dynamic range starts at 49152; 32768 is below it too.
  }
  const high = ephemeralLow - 1;
  return high - 1000 >= 20_000 ? [20_000, high] : [Math.max(1024, high - 1000), high];
}

/** A port the kernel picks (from the ephemeral range): the fallback when the draw finds none. */
function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** True when nothing listens on 127.0.0.1:port (so we may bind it). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

export interface OsUser {
  name: string;
  uid: number;
  gid: number;
}

/** The uid/gid of an OS user, or undefined when there is no such user. */
export function lookupUser(name: string): OsUser | undefined {
  try {
    const uid = Number(execFileSync("id", ["-u", name], { stdio: ["ignore", "pipe", "ignore"] }).toString().trim());
    const gid = Number(execFileSync("id", ["-g", name], { stdio: ["ignore", "pipe", "ignore"] }).toString().trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { name, uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

export function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** A short random lowercase hex string. */
export function randomId(length = 8): string {
  let out = "";
  while (out.length < length) out += randomUUID().replaceAll("-", "");
  return out.slice(0, length);
}
