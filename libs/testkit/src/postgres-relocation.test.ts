// As root, the private Postgres runs as the `postgres` OS user, which cannot enter a checkout
// under a mode-700 directory (root's home, a `mktemp -d` directory). Its cluster then lives in a
// per-checkout directory under RELOCATED_POSTGRES_ROOT, linked from the requested directory, so
// `make up` and the tests' private server start wherever the clone is.
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, isRoot, lookupUser } from "./net.ts";
import {
  RELOCATED_POSTGRES_ROOT,
  databaseIdentity,
  ensureDatabase,
  findPostgresBinDir,
  postgresAnswers,
  relocatedDataDir,
  removePostgresDataDir,
  resolvePostgres,
  startPostgresServer,
} from "./postgres.ts";

// Only root runs Postgres as another OS user; anyone else runs it as themselves and reaches
// every directory they own.
const skipReason = !isRoot()
  ? "not root: the private Postgres runs as ourselves, so no directory of ours is closed to it"
  : !findPostgresBinDir()
    ? "no PostgreSQL binaries under /usr/lib/postgresql/*/bin"
    : undefined;

/** The pids of processes whose command line mentions `text` (a running postmaster names its -D). */
function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text)) pids.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return pids;
}

/** A `mktemp -d` directory: mode 700, owned by root, closed to the `postgres` user. */
function closedDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "pg-closed-"));
  chmodSync(dir, 0o700);
  return dir;
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

describe("a private Postgres whose data directory its OS user cannot reach", () => {
  it("starts from a clone in a mode-700 directory, keeps its data across restarts and stops leaving nothing", async (context) => {
    if (skipReason) return context.skip(skipReason);
    const dir = closedDir();
    const requested = join(dir, "clone", ".data", "postgres");
    cleanups.push(() => {
      removePostgresDataDir(requested);
      rmSync(dir, { recursive: true, force: true });
    });
    const port = await freePort();
    const server = await startPostgresServer({ dataDir: requested, port, durable: true });
    const target = relocatedDataDir(requested);
    try {
      expect(server.dataDir).toBe(target);
      expect(target.startsWith(`${RELOCATED_POSTGRES_ROOT}/`)).toBe(true);
      expect(lstatSync(requested).isSymbolicLink()).toBe(true);
      expect(readlinkSync(requested)).toBe(target);
      const postgres = lookupUser("postgres") ?? lookupUser("nobody");
      const mode = statSync(target);
      expect(mode.mode & 0o777).toBe(0o700);
      expect(mode.uid).toBe(postgres?.uid);
      expect(await postgresAnswers(server.adminUrl)).toBe(true);
      await ensureDatabase(server.adminUrl, "kept");
    } finally {
      await server.stop();
    }
    expect(await postgresAnswers(server.adminUrl)).toBe(false);
    expect(processesMentioning(target)).toEqual([]);
    expect(existsSync(join(target, "postmaster.pid"))).toBe(false);

    // Started again: the same directory (a stable name), the same cluster.
    const again = await startPostgresServer({ dataDir: requested, port, durable: true });
    try {
      expect(again.dataDir).toBe(target);
      expect(await databaseIdentity(again.adminUrl, "kept")).toBeDefined();
    } finally {
      await again.stop();
    }
    expect(processesMentioning(target)).toEqual([]);

    // What `make reset` does: the link and the relocated directory go.
    removePostgresDataDir(requested);
    expect(existsSync(target)).toBe(false);
    expect(lstatSync(requested, { throwIfNoEntry: false })).toBeUndefined();
  });

  it("moves a cluster made while the clone was reachable once its parent is closed", async (context) => {
    if (skipReason) return context.skip(skipReason);
    const dir = closedDir();
    chmodSync(dir, 0o755);
    const requested = join(dir, "clone", ".data", "postgres");
    cleanups.push(() => {
      removePostgresDataDir(requested);
      rmSync(dir, { recursive: true, force: true });
    });
    const open = await startPostgresServer({ dataDir: requested });
    let identity: string | undefined;
    try {
      expect(open.dataDir).toBe(requested);
      await ensureDatabase(open.adminUrl, "kept");
      identity = await databaseIdentity(open.adminUrl, "kept");
    } finally {
      await open.stop();
    }
    chmodSync(dir, 0o700);
    const closed = await startPostgresServer({ dataDir: requested });
    try {
      expect(closed.dataDir).toBe(relocatedDataDir(requested));
      expect(await databaseIdentity(closed.adminUrl, "kept")).toBe(identity);
    } finally {
      await closed.stop();
    }
  });

  it("is what the tests' own Postgres does when TMPDIR is closed to it, removed when released", async (context) => {
    if (skipReason) return context.skip(skipReason);
    const dir = closedDir();
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    cleanups.push(() => {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
      rmSync(dir, { recursive: true, force: true });
    });
    const before = existsSync(RELOCATED_POSTGRES_ROOT) ? readdirSync(RELOCATED_POSTGRES_ROOT) : [];
    const pg = await resolvePostgres({ env: {}, localPort: await freePort(), containers: false });
    try {
      expect(pg.source).toBe("binary");
      expect(await postgresAnswers(pg.adminUrl)).toBe(true);
    } finally {
      await pg.stop();
    }
    expect(await postgresAnswers(pg.adminUrl)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(RELOCATED_POSTGRES_ROOT).filter((name) => !before.includes(name) && name.includes(basename(dir)))).toEqual([]);
  });
});
