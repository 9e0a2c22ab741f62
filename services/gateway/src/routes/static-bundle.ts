// Serving a browser app's static bundle (index.html, favicon.svg, assets/<hashed name>): read
// once (and again when index.html changes), compressed ahead of time, sent with the app's
// Content-Security-Policy and the headers every page of ours carries.
import { readdir, readFile, stat } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, brotliCompressSync, constants as zlib, gzip as gzipCallback, gzipSync } from "node:zlib";
import type { GatewayState } from "../types.ts";
import type Koa from "koa";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json",
};

export interface StaticFile {
  type: string;
  raw: Buffer;
  gzip: Buffer;
  brotli: Buffer;
}

function createBundle(dir: string) {
  let loaded: { mtimeMs: number; files: Map<string, StaticFile> } | undefined;
  async function read(path: string): Promise<StaticFile> {
    const raw = await readFile(path);
    return {
      type: TYPES[extname(path)] ?? "application/octet-stream",
      raw,
      gzip: gzipSync(raw, { level: 9 }),
      brotli: brotliCompressSync(raw, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }),
    };
  }
  return {
    /** The bundle, or undefined when it has not been built. */
    async files(): Promise<Map<string, StaticFile> | undefined> {
      let mtimeMs: number;
      try {
        mtimeMs = (await stat(join(dir, "index.html"))).mtimeMs;
      } catch {
        loaded = undefined;
        return undefined;
      }
      if (loaded?.mtimeMs === mtimeMs) return loaded.files;
      const files = new Map<string, StaticFile>();
      files.set("index.html", await read(join(dir, "index.html")));
      // The app's icon (its <link rel="icon">), when the bundle has one.
      await read(join(dir, "favicon.svg")).then((file) => files.set("favicon.svg", file), () => undefined);
      // Facts of the build the server reads (never answered by a route: no handler names it).
      await read(join(dir, "catalogs.json")).then((file) => files.set("catalogs.json", file), () => undefined);
      const assets = await readdir(join(dir, "assets")).catch(() => [] as string[]);
      for (const name of assets) files.set(`assets/${name}`, await read(join(dir, "assets", name)));
      loaded = { mtimeMs, files };
      return files;
    },
  };
}

type Context = Koa.ParameterizedContext<GatewayState>;

const brotli = promisify(brotliCompress);
const gzip = promisify(gzipCallback);

/** The bundle's files by name ("index.html", "assets/x.js"). */
export type BundleFiles = ReadonlyMap<string, StaticFile>;

/**
 * The page answered instead of the file as it is, for this request (e.g. with the data of the
 * session it is opened for), or undefined for the file itself. Such an answer is never stored.
 */
export type Personalize = (ctx: Context, file: StaticFile, files: BundleFiles) => Promise<string | undefined>;

export interface StaticBundleOptions {
  /** Folder of the built bundle. */
  dir: string;
  contentSecurityPolicy: string;
  /** The page answered (503) while the bundle has not been built. */
  notBuiltPage: string;
}

/**
 * A Koa handler factory: `serve(name)` answers the bundle's file `name(ctx)` ("index.html",
 * "assets/x.js"), 404 for a file the bundle does not have.
 */
export function staticBundle(options: StaticBundleOptions) {
  const bundle = createBundle(resolve(options.dir));
  return (name: (ctx: Context) => string, personalize?: Personalize) => async (ctx: Context) => {
    ctx.set("Content-Security-Policy", options.contentSecurityPolicy);
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Referrer-Policy", "no-referrer");
    ctx.set("Cross-Origin-Resource-Policy", "same-origin");
    const files = await bundle.files();
    if (!files) {
      ctx.status = 503;
      ctx.set("Retry-After", "30");
      ctx.set("Cache-Control", "no-store");
      ctx.type = "text/html; charset=utf-8";
      ctx.body = options.notBuiltPage;
      return;
    }
    const file = files.get(name(ctx));
    if (!file) {
      ctx.status = 404;
      ctx.type = "text/plain; charset=utf-8";
      ctx.body = "Not found";
      return;
    }
    ctx.set("Vary", "Accept-Encoding");
    ctx.type = file.type;
    // Brotli when the browser takes it (smaller), else gzip; not the client's order of equals.
    const accepted = ctx.acceptsEncodings("br") === "br" ? "br" : ctx.acceptsEncodings("gzip") === "gzip" ? "gzip" : "identity";
    const personal = personalize && (await personalize(ctx, file, files));
    let body: Buffer;
    if (personal !== undefined) {
      ctx.set("Cache-Control", "no-store");
      // Compressed per answer, quickly: a few kilobytes, on the path to the page's first paint.
      const raw = Buffer.from(personal);
      body = accepted === "br" ? await brotli(raw, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } }) : accepted === "gzip" ? await gzip(raw, { level: 6 }) : raw;
    } else {
      // Hashed asset names never change content; index.html is asked for again every time.
      ctx.set("Cache-Control", name(ctx).startsWith("assets/") ? "public, max-age=31536000, immutable" : "no-cache");
      body = accepted === "br" ? file.brotli : accepted === "gzip" ? file.gzip : file.raw;
    }
    if (accepted !== "identity") ctx.set("Content-Encoding", accepted);
    ctx.body = body;
  };
}
