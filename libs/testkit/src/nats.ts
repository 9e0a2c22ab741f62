// NATS with JetStream for tests and the local stack: NATS_URL, else the local server (only if
// JetStream is enabled), else a container, else a private `nats-server -js` child process.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { containerEngineAnswers, startNatsContainer } from "./containers.ts";
import { freePort, tcpAnswers, waitFor } from "./net.ts";
import type { InfraSource, ResolveOptions } from "./postgres.ts";
import { createShared, onProcessExit } from "./shared.ts";

export interface ResolvedNats {
  url: string;
  source: InfraSource;
  stop(): Promise<void>;
}

export const LOCAL_NATS_PORT = 4222;

async function connectQuietly(url: string, timeoutMs: number): Promise<NatsConnection> {
  return connect({ servers: url, timeout: timeoutMs, reconnect: false, maxReconnectAttempts: 0 });
}

/** True when a NATS server answers on `url` AND has JetStream enabled. */
export async function natsJetStreamAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  if (!(await tcpAnswers(hostname || "127.0.0.1", Number(port || LOCAL_NATS_PORT), Math.min(timeoutMs, 300)))) {
    return false;
  }
  let nc: NatsConnection | undefined;
  try {
    nc = await connectQuietly(url, timeoutMs);
    const jsm = await jetstreamManager(nc, { timeout: timeoutMs, checkAPI: false });
    await jsm.getAccountInfo();
    return true;
  } catch {
    return false;
  } finally {
    await nc?.close().catch(() => {});
  }
}

export function findNatsServer(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":").concat(["/usr/sbin", "/usr/bin", "/usr/local/bin"])) {
    if (dir && existsSync(join(dir, "nats-server"))) return join(dir, "nats-server");
  }
  return undefined;
}

export interface NatsServerOptions {
  /** JetStream store directory (-sd). */
  storeDir: string;
  /** Port on 127.0.0.1 (default: a free one). */
  port?: number;
  /** Remove storeDir after stopping (temp instances). */
  removeOnStop?: boolean;
  /** Start in its own process group so a terminal's Ctrl-C does not reach it (local stack). */
  detached?: boolean;
  /** More arguments (a server name, clustering). */
  args?: string[];
}

export interface NatsServer {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `nats-server -js -a 127.0.0.1 -p <port> -sd <storeDir>` and waits until it accepts. */
export async function startNatsServer(options: NatsServerOptions): Promise<NatsServer> {
  const bin = findNatsServer();
  if (!bin) throw new Error("no nats-server binary on PATH or in /usr/sbin (apt-get install nats-server)");
  const port = options.port ?? (await freePort());
  mkdirSync(options.storeDir, { recursive: true });
  const child = spawn(bin, ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", options.storeDir, ...(options.args ?? [])], {
    stdio: ["ignore", "ignore", "pipe"],
    detached: options.detached ?? false,
  });
  let output = "";
  child.stderr?.on("data", (d: Buffer) => {
    output = (output + d.toString()).slice(-4000);
  });
  let exited = false;
  const exitedPromise = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const cleanup = (): void => {
    if (options.removeOnStop) rmSync(options.storeDir, { recursive: true, force: true });
  };
  const unregister = onProcessExit(() => {
    if (!exited) child.kill("SIGKILL");
    cleanup();
  });
  const url = `nats://127.0.0.1:${port}`;
  try {
    await waitFor(`nats-server on port ${port}`, async () => {
      if (exited) throw new Error(`nats-server exited early:\n${output.trim()}`);
      return tcpAnswers("127.0.0.1", port, 300);
    }, 15_000, 50);
  } catch (error) {
    if (!exited) child.kill("SIGKILL");
    unregister();
    cleanup();
    throw error;
  }
  let stopped = false;
  return {
    url,
    port,
    child,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      unregister();
      if (!exited) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exitedPromise;
        clearTimeout(timer);
      }
      cleanup();
    },
  };
}

const privateNats = createShared(async () => {
  const storeDir = mkdtempSync(join(tmpdir(), "testkit-nats-"));
  return startNatsServer({ storeDir, removeOnStop: true });
});

const containerNats = createShared(startNatsContainer);

export async function resolveNats(options: ResolveOptions = {}): Promise<ResolvedNats> {
  const env = options.env ?? process.env;
  if (env.NATS_URL) return { url: env.NATS_URL, source: "env", stop: async () => {} };

  const localUrl = `nats://${options.localHost ?? "127.0.0.1"}:${options.localPort ?? LOCAL_NATS_PORT}`;
  if (await natsJetStreamAnswers(localUrl)) return { url: localUrl, source: "local", stop: async () => {} };

  if (options.containers !== false && (await containerEngineAnswers())) {
    const lease = await containerNats.acquire();
    return { url: `nats://${lease.value.host}:${lease.value.port}`, source: "container", stop: lease.release };
  }

  const lease = await privateNats.acquire();
  return { url: lease.value.url, source: "binary", stop: lease.release };
}

function normaliseName(name: string): string {
  return name.replace(/[.-]/g, "_").toLowerCase();
}

/**
 * True when a stream belongs to the run with `prefix`: its name starts with the prefix,
 * compared case-insensitively with `.`/`-` read as `_`. KV and object-store streams
 * (`KV_<bucket>`, `OBJ_<bucket>`) count by their bucket name.
 */
export function streamHasPrefix(stream: string, prefix: string): boolean {
  const p = normaliseName(prefix);
  const s = normaliseName(stream);
  return s.startsWith(p) || s.startsWith(`kv_${p}`) || s.startsWith(`obj_${p}`);
}

/** The names of all JetStream streams on the server. */
export async function listStreams(natsUrl: string): Promise<string[]> {
  const nc = await connectQuietly(natsUrl, 5000);
  try {
    const jsm = await jetstreamManager(nc);
    const names: string[] = [];
    for await (const name of jsm.streams.names()) names.push(name);
    return names;
  } finally {
    await nc.close().catch(() => {});
  }
}

/** Deletes every JetStream stream whose name `match`es; returns the names deleted. */
export async function deleteStreamsMatching(natsUrl: string, match: (stream: string) => boolean): Promise<string[]> {
  const nc = await connectQuietly(natsUrl, 5000);
  try {
    const jsm = await jetstreamManager(nc);
    // List first, then delete: deleting while paging through the lister can skip names.
    const names: string[] = [];
    for await (const name of jsm.streams.names()) {
      if (match(name)) names.push(name);
    }
    for (const name of names) await jsm.streams.delete(name);
    return names;
  } finally {
    await nc.close().catch(() => {});
  }
}

/** Deletes every JetStream stream of the run with `prefix`; returns the names deleted. */
export async function deleteStreamsWithPrefix(natsUrl: string, prefix: string): Promise<string[]> {
  if (!normaliseName(prefix)) throw new Error("refusing to delete streams with an empty prefix");
  return deleteStreamsMatching(natsUrl, (name) => streamHasPrefix(name, prefix));
}
