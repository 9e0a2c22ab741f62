// Builds a browser app (a Vite package of apps/) into a temporary folder for a test, so the
// tests always run the current sources (not a stale dist/), and measures what the browser
// transfers.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "vite";

export interface BuiltBundle {
  dir: string;
  remove(): Promise<void>;
}

/** Builds the Vite app in `packageDir` (its vite.config.ts) as `vite build` does. */
export async function buildBundle(packageDir: string): Promise<BuiltBundle> {
  const dir = await mkdtemp(join(tmpdir(), "app-bundle-"));
  // vitest sets NODE_ENV=test, which would make Vite keep development code: build as `vite build` does.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await build({ root: packageDir, configFile: join(packageDir, "vite.config.ts"), mode: "production", logLevel: "warn", build: { outDir: dir, emptyOutDir: true } });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
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
