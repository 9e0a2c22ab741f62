// The page's weight budget: its JavaScript and CSS together transfer at most 80 KB compressed
// (gzip, level 9; the gateway also offers brotli, which is smaller). The measured size is
// printed and stated in the docs (docs/web-support.md).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBundle, measure, type BuiltBundle } from "@support/testkit/bundle";

const BUDGET_BYTES = 80 * 1024;

describe("the built page", () => {
  let bundle: BuiltBundle;
  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
  }, 120_000);
  afterAll(() => bundle?.remove());

  it("transfers at most 80 KB of JavaScript and CSS, compressed", async () => {
    const { files, gzipTotal } = await measure(bundle.dir);
    for (const file of files) console.log(`${file.name}: ${file.raw} bytes, ${file.gzip} gzipped`);
    console.log(`JavaScript + CSS: ${gzipTotal} bytes gzipped (budget ${BUDGET_BYTES})`);
    expect(files.some((file) => file.name.endsWith(".js"))).toBe(true);
    expect(files.some((file) => file.name.endsWith(".css"))).toBe(true);
    expect(gzipTotal).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it("has no inline script or style (the CSP allows neither) and no third-party URL", async () => {
    const html = await readFile(join(bundle.dir, "index.html"), "utf8");
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(html).not.toMatch(/https?:\/\//);
  });
});
