// Builds a browser app (a Vite package of apps/) into a temporary folder for the tests, so they
// always run the current sources (not a stale dist/), and measures what the browser transfers.
import { rmSync } from "node:fs";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "vite";

export interface BuiltBundle {
  /** The built app; the folder is removed when the test process ends (other files of the process use it too). */
  dir: string;
}

/**
 * One build per app and test process: the sources do not change during a run, and a build costs
 * seconds of CPU that every test file of a package would otherwise spend again. The builds go to
 * the run's scratch folder, which the global setup removes when the run ends (vitest ends its
 * workers without an exit event); outside it, to the system's temporary folder, removed at exit.
 */
const builds = new Map<string, Promise<string>>();
const folders: string[] = [];
process.once("exit", () => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** Builds the Vite app in `packageDir` (its vite.config.ts) as `vite build` does, once per test process. */
export async function buildBundle(packageDir: string): Promise<BuiltBundle> {
  const key = resolve(packageDir);
  let built = builds.get(key);
  if (built === undefined) {
    built = buildInto(key);
    builds.set(key, built);
    // A failed build is not kept: the next file tries again and reports its own failure.
    built.catch(() => builds.delete(key));
  }
  return { dir: await built };
}

async function buildInto(packageDir: string): Promise<string> {
  const runDir = process.env.TEST_RUN_DIR;
  const dir = await mkdtemp(join(runDir ?? tmpdir(), "app-bundle-"));
  if (runDir === undefined) folders.push(dir);
  // vitest sets NODE_ENV=test, which would make Vite keep development code: build as `vite build` does.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await build({ root: packageDir, configFile: join(packageDir, "vite.config.ts"), mode: "production", logLevel: "warn", build: { outDir: dir, emptyOutDir: true } });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  return dir;
}

/** Bytes of every JavaScript and CSS file of the bundle, raw and gzip-compressed. */
export async function measure(dir: string): Promise<{ files: { name: string; raw: number; gzip: number }[]; gzipTotal: number }> {
  const names = (await readdir(join(dir, "assets"))).filter((name) => /\.(js|css)$/.test(name));
  const files = [];
  for (const name of names) {
    const raw = await readFile(join(dir, "assets", name));
    files.push({ name, raw: raw.length, gzip: gzipSync(raw, { level: 9 }).length });
  }
  return { files, gzipTotal: files.reduce((sum, file) => sum + file.gzip, 0) };
}
