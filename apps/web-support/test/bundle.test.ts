// The page's weight budget: what a player's browser loads to show the page, the main entry's
// JavaScript and CSS (index.html names them), the articles' Markdown renderer (a chunk of its
// own, asked for beside the session) and the largest single catalog chunk (a page in another
// language than English loads exactly one), transfers at most 60 KB compressed (gzip, level 9;
// the gateway also offers brotli, which is smaller). The other catalogs are never loaded
// together, so they are not counted. The measured sizes are printed and stated in the docs
// (docs/web-support.md).
import { beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBundle, measure, type BuiltBundle } from "@support/testkit/bundle";
import { catalogFileFor } from "@support/gateway";
import { CATALOG_LANGUAGES, catalogLanguage } from "../src/i18n.ts";
import { API_LANGUAGES } from "./api-languages.ts";

const BUDGET_BYTES = 60 * 1024;

describe("the built page", () => {
  let bundle: BuiltBundle;
  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
  }, 120_000);

  /** The entry's files (index.html's script and stylesheet), by name in assets/. */
  async function entryFiles(): Promise<string[]> {
    const html = await readFile(join(bundle.dir, "index.html"), "utf8");
    return [...html.matchAll(/(?:src|href)="\.\/assets\/([^"]+\.(?:js|css))"/g)].map((match) => match[1]!);
  }

  it("transfers at most 60 KB of JavaScript and CSS, compressed: the entry, the Markdown renderer and the largest catalog", async () => {
    const { files } = await measure(bundle.dir);
    const entry = await entryFiles();
    expect(entry.some((name) => name.endsWith(".js"))).toBe(true);
    expect(entry.some((name) => name.endsWith(".css"))).toBe(true);
    const renderer = files.filter((file) => file.name.startsWith("article-markdown-"));
    expect(renderer).toHaveLength(1);
    const main = [...files.filter((file) => entry.includes(file.name)), ...renderer];
    const catalogs = files.filter((file) => !main.includes(file));
    // Every chunk besides the entry is one language's catalog (named after its file).
    expect(catalogs.map((file) => file.name.replace(/-[\w-]{8}\.js$/, "")).sort()).toEqual(CATALOG_LANGUAGES.filter((language) => language !== "en").sort());
    const largest = catalogs.reduce((big, file) => (file.gzip > big.gzip ? file : big));
    for (const file of main) console.log(`${file.name}: ${file.raw} bytes, ${file.gzip} gzipped`);
    const mainGzip = main.reduce((sum, file) => sum + file.gzip, 0);
    const catalogTotal = catalogs.reduce((sum, file) => sum + file.gzip, 0);
    console.log(`catalog chunks: ${catalogs.length}, ${catalogTotal} bytes gzipped together, the largest ${largest.name} ${largest.gzip}, the smallest ${Math.min(...catalogs.map((file) => file.gzip))}`);
    console.log(`entry JavaScript + CSS and the renderer: ${mainGzip} bytes gzipped; with the largest catalog: ${mainGzip + largest.gzip} (budget ${BUDGET_BYTES})`);
    expect(mainGzip + largest.gzip).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it("has only English in the entry: every other language is in its own chunk", async () => {
    const entryScript = (await entryFiles()).find((name) => name.endsWith(".js"))!;
    const main = await readFile(join(bundle.dir, "assets", entryScript), "utf8");
    expect(main).toContain("Contact support");
    // The Markdown renderer (marked, DOMPurify) is not in the entry: the home page does not need it.
    expect(main).not.toContain("DOMPurify");
    // Distinctive texts of other catalogs (German, Japanese, Traditional Chinese, Russian).
    for (const text of ["Support kontaktieren", "サポートに問い合わせる", "聯絡客服", "Связаться с поддержкой"]) expect(main).not.toContain(text);
  });

  it("writes where each language's catalog is, and the gateway preloads the chunk the page then loads, for every language of the API", async () => {
    const raw = await readFile(join(bundle.dir, "catalogs.json"));
    const files = new Map([["catalogs.json", { type: "application/json", raw, gzip: raw, brotli: raw }]]);
    for (const tag of Object.keys(API_LANGUAGES)) {
      const language = catalogLanguage(tag);
      const preloaded = catalogFileFor(files, tag);
      if (language === "en") expect(preloaded, tag).toBeUndefined();
      else expect(preloaded, tag).toMatch(new RegExp(`^assets/${language}-[\\w-]{8}\\.js$`));
    }
  });

  it("has no inline script or style (the CSP allows neither) and no third-party URL", async () => {
    const html = await readFile(join(bundle.dir, "index.html"), "utf8");
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(html).not.toMatch(/https?:\/\//);
  });
});
