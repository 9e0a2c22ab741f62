// The package as it is published: the manifest, the build (tsc to dist) loaded through its own
// `exports` by Node and by the compiler, and no import of the repository's services.
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const packageDir = join(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
  name: string;
  version: string;
  private?: boolean;
  exports: Record<string, { types: string; default: string } | string>;
  types: string;
  files: string[];
  dependencies: Record<string, string>;
  publishConfig: { access: string };
};
const tsc = join(packageDir, "node_modules", "typescript", "bin", "tsc");

describe("the published package", () => {
  let dir: string;

  beforeAll(async () => {
    // A copy of what `npm pack` ships (manifest + dist), next to the package's dependencies.
    dir = mkdtempSync(join(tmpdir(), "support-client-"));
    await run(process.execPath, [tsc, "-p", join(packageDir, "tsconfig.build.json"), "--outDir", join(dir, "dist")]);
    cpSync(join(packageDir, "package.json"), join(dir, "package.json"));
    symlinkSync(join(packageDir, "node_modules"), join(dir, "node_modules"), "dir");
  }, 120_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("has a publishable manifest", () => {
    expect(manifest.name).toBe("@player-support/client");
    expect(manifest.version).toBe("0.1.0");
    expect(manifest.private).toBeUndefined();
    expect(manifest.publishConfig.access).toBe("public");
    expect(manifest.files).toContain("dist");
    expect(manifest.types).toBe("./dist/index.d.ts");
    for (const version of Object.values(manifest.dependencies)) expect(version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("imports nothing but its own files and its dependencies", () => {
    const sources = readdirSync(join(packageDir, "src"), { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"));
    expect(sources.length).toBeGreaterThan(3);
    for (const file of sources) {
      const text = readFileSync(join(packageDir, "src", file), "utf8");
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
        if (specifier!.startsWith("./") || specifier!.startsWith("../")) {
          expect(specifier, `${file} imports ${specifier}`).not.toMatch(/\.\.\/\.\./);
        } else {
          expect(Object.keys(manifest.dependencies), `${file} imports ${specifier}`).toContain(specifier);
        }
      }
    }
  });

  it("builds to dist files that every export names", () => {
    const built = readdirSync(join(dir, "dist"), { recursive: true, encoding: "utf8" });
    for (const target of Object.values(manifest.exports)) {
      if (typeof target === "string") continue;
      expect(built).toContain(target.types.replace("./dist/", ""));
      expect(built).toContain(target.default.replace("./dist/", ""));
    }
  });

  it("loads in Node through its exports", async () => {
    writeFileSync(
      join(dir, "check.mjs"),
      `const main = await import("@player-support/client");
       const webhooks = await import("@player-support/client/webhooks");
       console.log(JSON.stringify({ main: Object.keys(main).sort(), webhooks: Object.keys(webhooks).sort() }));`,
    );
    const { stdout } = await run(process.execPath, [join(dir, "check.mjs")], { cwd: dir });
    const exported = JSON.parse(stdout) as { main: string[]; webhooks: string[] };
    expect(exported.main).toEqual(expect.arrayContaining(["createSupportClient", "listTickets", "ticketPages", "unwrap", "SupportApiError", "verifyWebhook", "withoutIdempotencyKey"]));
    expect(exported.webhooks).toEqual(expect.arrayContaining(["verifyWebhook", "WebhookVerificationError"]));
  });

  it("type-checks a consumer against the built declarations", async () => {
    writeFileSync(
      join(dir, "consumer.ts"),
      `import { createSupportClient, listTickets, unwrap } from "@player-support/client";
       import { verifyWebhook } from "@player-support/client/webhooks";
       const client = createSupportClient({ baseUrl: "http://127.0.0.1:1", apiKey: "psk_x" });
       export async function use(gameId: string): Promise<number> {
         const { runningId } = await unwrap(client.POST("/tickets", { body: { gameId, message: "m", language: "en", channels: ["email"], metadata: { player: { email: "a@b.c" } } } }));
         for await (const ticket of listTickets(client, { gameId })) if (ticket.status === "new") break;
         // @ts-expect-error not an operation of the API
         await client.GET("/no-such-path");
         verifyWebhook("{}", {}, "whsec_c2VjcmV0");
         return runningId;
       }`,
    );
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", lib: ["ES2022", "DOM"], types: ["node"], strict: true, noEmit: true }, files: ["consumer.ts"] }),
    );
    await run(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")]).catch((error: { stdout?: string }) => {
      throw new Error(`the consumer does not type-check:\n${error.stdout}`);
    });
  }, 120_000);
});
