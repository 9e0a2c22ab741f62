// The console's weight budget: its JavaScript and CSS together transfer at most 150 KB
// compressed (gzip, level 9; the gateway also offers brotli, which is smaller). Agents open it
// once a day on a desktop, so the budget is larger than the players' page's; the measured size
// is printed and stated in docs/agent-console.md.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBundle, measure, type BuiltBundle } from "@support/testkit/bundle";
import { beforeAll, describe, expect, it } from "vitest";

const BUDGET_BYTES = 150 * 1024;

describe("the built console", () => {
  let bundle: BuiltBundle;
  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
  }, 120_000);

  it("transfers at most 150 KB of JavaScript and CSS, compressed", async () => {
    const { files, gzipTotal } = await measure(bundle.dir);
    for (const file of files) console.log(`${file.name}: ${file.raw} bytes, ${file.gzip} gzipped`);
    console.log(`JavaScript + CSS: ${gzipTotal} bytes gzipped (budget ${BUDGET_BYTES})`);
    expect(files.some((file) => file.name.endsWith(".js"))).toBe(true);
    expect(gzipTotal).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it("has no inline script or style (the CSP allows neither), no third-party URL, and assets under /app/", async () => {
    const html = await readFile(join(bundle.dir, "index.html"), "utf8");
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).toMatch(/src="\/app\/assets\/[\w-]+\.js"/);
  });
});
