// Small network and process helpers shared by the resolvers and scripts/up.ts.
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
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

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
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
