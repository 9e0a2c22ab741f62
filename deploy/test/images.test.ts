// The Dockerfiles, read (production-build.test.ts runs their steps without Docker, container-images.test.ts with it):
// generated from deploy/image/spec.ts and up to date, multi-stage, and a runtime stage with
// nothing but Node, tini and the slimmed workspace, run as a non-root user.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { renderDockerfile } from "../image/dockerfile.ts";
import { productionClosure, slimWorkspace } from "../image/slim-workspace.ts";
import { AGENT_CONSOLE_PAGE, ENTRYPOINT_IN_IMAGE, ENTRYPOINT_SCRIPT, RUNTIME_UID, SERVICES, WEB_SUPPORT_PAGE, toolVersions } from "../image/spec.ts";
import { repoRoot } from "../scripts/repo.ts";
import { dockerignoreMatcher } from "./support/image-build.ts";

const root = repoRoot();
const versions = toolVersions(root);
const scratch: string[] = [];
afterAll(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Instructions of each stage: [{ from, lines }]. */
function stages(dockerfile: string): { from: string; lines: string[] }[] {
  const joined = dockerfile.replace(/\\\n\s*/g, " ");
  const result: { from: string; lines: string[] }[] = [];
  for (const line of joined.split("\n").map((l) => l.trim())) {
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("FROM ")) result.push({ from: line, lines: [] });
    else result.at(-1)?.lines.push(line);
  }
  return result;
}

describe.each(SERVICES.map((image) => [image.name, image]))("services/%s/Dockerfile", (name, image) => {
  const text = readFileSync(join(root, "services", name as string, "Dockerfile"), "utf8");

  it("is the one deploy/image/spec.ts generates (pnpm --filter @support/deploy dockerfiles)", () => {
    expect(text).toBe(renderDockerfile(image as (typeof SERVICES)[number], versions));
  });

  it("builds in stages from the repository's pinned Node, pnpm and turbo", () => {
    // The base is a build argument (a build without a registry passes a local image), the official image by default.
    expect(text).toContain(`ARG NODE_IMAGE=node:${versions.node}-bookworm-slim`);
    // No `# syntax=` directive: it makes BuildKit fetch a frontend image from a registry.
    expect(text).not.toMatch(/^#\s*syntax\s*=/m);
    expect(text).toContain(`pnpm@${versions.pnpm} turbo@${versions.turbo}`);
    const all = stages(text);
    // Only the gateway's image has a page stage (the web support page it serves).
    const expected = name === "gateway" ? ["tools", "prune", "build", "page", "runtime"] : ["tools", "prune", "build", "runtime"];
    expect(all.map((stage) => stage.from.split(" AS ")[1])).toEqual(expected);
    expect(all.find((s) => s.from.endsWith("prune"))!.lines.join("\n")).toContain(`turbo prune @support/${name} --docker`);
    expect(all.find((s) => s.from.endsWith("build"))!.lines.join("\n")).toContain(`pnpm install --prod --frozen-lockfile --filter-prod @support/${name}...`);
  });

  it("runs as a non-root user under tini, in production mode, with a healthcheck and no build tools", () => {
    const runtime = stages(text).at(-1)!;
    expect(runtime.from).toBe("FROM ${NODE_IMAGE} AS runtime");
    const lines = runtime.lines;
    expect(lines).toContain(`USER ${RUNTIME_UID}:${RUNTIME_UID}`);
    expect(RUNTIME_UID).toBeGreaterThan(0);
    expect(lines.find((l) => l.startsWith("ENV "))).toContain("NODE_ENV=production");
    expect(lines).toContain(`ENTRYPOINT ["/usr/bin/tini", "--", "${ENTRYPOINT_IN_IMAGE}"]`);
    expect(lines).toContain('CMD ["node", "src/main.ts"]');
    expect(lines.some((l) => l.startsWith("HEALTHCHECK "))).toBe(true);
    const page =
      name === "gateway" ? ["COPY --from=page /page/apps/web-support/dist /app/apps/web-support/dist", "COPY --from=page /page/apps/agent-console/dist /app/apps/agent-console/dist"] : [];
    expect(lines.filter((l) => l.startsWith("COPY "))).toEqual(["COPY --from=build /app /app", ...page, `COPY ${ENTRYPOINT_SCRIPT} ${ENTRYPOINT_IN_IMAGE}`]);
    expect(lines.join("\n")).not.toMatch(/\b(pnpm|turbo|npm install)\b/);
  });
});

describe("the gateway's image, the web support page and the support application", () => {
  const text = readFileSync(join(root, "services/gateway/Dockerfile"), "utf8");

  it("builds the pages in a stage of their own, with their devDependencies, from a pruned workspace", () => {
    expect(SERVICES.find((image) => image.name === "gateway")!.pages).toEqual([WEB_SUPPORT_PAGE, AGENT_CONSOLE_PAGE]);
    const all = stages(text);
    expect(all.find((s) => s.from.endsWith(" AS prune"))!.lines).toContain("RUN turbo prune @support/web-support @support/agent-console --docker --out-dir /pruned-page");
    const page = all.find((s) => s.from.endsWith(" AS page"))!;
    expect(page.from).toBe("FROM tools AS page");
    const run = page.lines.filter((l) => l.startsWith("RUN "));
    // No --prod: the build needs Vite, a devDependency; the stage's node_modules never reach the runtime stage.
    expect(run[0]).toMatch(/pnpm install --frozen-lockfile --filter @support\/web-support\.\.\. --filter @support\/agent-console\.\.\.$/);
    expect(run[1]).toBe("RUN pnpm --filter @support/web-support --filter @support/agent-console run build");
    // The pages' tsconfig extends the root's, which turbo prune does not copy.
    expect(page.lines).toContain("COPY tsconfig.base.json ./");
    for (const app of ["web-support", "agent-console"]) {
      expect(readFileSync(join(root, `apps/${app}/tsconfig.json`), "utf8")).toContain('"extends": "../../tsconfig.base.json"');
    }
  });

  it("copies only the built pages into the runtime stage, where the gateway looks for them by default", () => {
    const runtime = stages(text).at(-1)!;
    expect(runtime.lines).toContain("COPY --from=page /page/apps/web-support/dist /app/apps/web-support/dist");
    expect(runtime.lines).toContain("COPY --from=page /page/apps/agent-console/dist /app/apps/agent-console/dist");
    const consoleRoute = readFileSync(join(root, "services/gateway/src/routes/agent-console.ts"), "utf8");
    expect(consoleRoute).toContain('new URL("../../../../apps/agent-console/dist/", import.meta.url)');
    // The gateway's default WEB_SUPPORT_DIR: apps/web-support/dist four folders above its routes/web-support.ts,
    // i.e. /app/apps/web-support/dist for /app/services/gateway/src/routes/web-support.ts.
    const route = readFileSync(join(root, "services/gateway/src/routes/web-support.ts"), "utf8");
    expect(route).toContain('new URL("../../../../apps/web-support/dist/", import.meta.url)');
    // The other images hold no page.
    for (const image of SERVICES.filter((i) => i.name !== "gateway")) {
      expect(readFileSync(join(root, "services", image.name, "Dockerfile"), "utf8")).not.toMatch(/web-support|agent-console|AS page/);
    }
  });
});

describe(".dockerignore", () => {
  const excluded = dockerignoreMatcher(readFileSync(join(root, ".dockerignore"), "utf8"));

  it("keeps local state, dependencies and secrets out of the build context", () => {
    for (const path of [".git", "node_modules", "services/content/node_modules", "libs/db/node_modules/pg", ".data/postgres", ".turbo", "libs/proto/.turbo", ".env", ".env.local", "deploy/k8s/base"]) {
      expect(excluded(path), path).toBe(true);
    }
  });

  it("keeps what the images build from", () => {
    for (const path of ["package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml", "turbo.json", "tsconfig.base.json", "apps/web-support/src/main.tsx", "patches", "services/gateway/src/openapi/openapi.yaml", "libs/proto/src/gen", "deploy/image/slim-workspace.ts", "deploy/image/node-entrypoint.sh", "deploy/package.json"]) {
      expect(excluded(path), path).toBe(false);
    }
  });

  it("reads patterns as Docker does: from the root, ** for any depth, ! to re-include", () => {
    const match = dockerignoreMatcher("node_modules\n**/*.log\n*.md\n!README.md\n");
    expect(match("node_modules")).toBe(true);
    expect(match("a/node_modules")).toBe(false);
    expect(match("a/b/x.log")).toBe(true);
    expect(match("x.log")).toBe(true);
    expect(match("NOTES.md")).toBe(true);
    expect(match("README.md")).toBe(false);
    expect(match("docs/NOTES.md")).toBe(false);
  });
});

describe("slim-workspace", () => {
  function workspace(): string {
    const dir = mkdtempSync(join(tmpdir(), "slim-"));
    scratch.push(dir);
    const pkg = (path: string, json: object) => {
      mkdirSync(join(dir, path, "src"), { recursive: true });
      writeFileSync(join(dir, path, "package.json"), JSON.stringify(json));
      writeFileSync(join(dir, path, "src", "index.ts"), "export {};\n");
      writeFileSync(join(dir, path, "src", "index.test.ts"), "test\n");
    };
    writeFileSync(join(dir, "pnpm-workspace.yaml"), 'packages:\n  - "libs/*"\n  - services/*\n');
    writeFileSync(join(dir, "turbo.json"), "{}");
    pkg("libs/a", { name: "@x/a", dependencies: { "@x/b": "workspace:*", kysely: "1.0.0" } });
    pkg("libs/b", { name: "@x/b" });
    pkg("libs/testkit", { name: "@x/testkit" });
    pkg("services/s", { name: "@x/s", dependencies: { "@x/a": "workspace:*" }, devDependencies: { "@x/testkit": "workspace:*", "@x/t": "workspace:*" } });
    pkg("services/t", { name: "@x/t" });
    mkdirSync(join(dir, "services/s/test"));
    writeFileSync(join(dir, "services/s/test/e2e.test.ts"), "test\n");
    mkdirSync(join(dir, "services/s/src/test-data"));
    return dir;
  }

  it("follows production dependencies only", () => {
    expect([...productionClosure(workspace(), "@x/s").keys()].sort()).toEqual(["@x/a", "@x/b", "@x/s"]);
  });

  it("removes the packages outside the closure, tests and tooling files", () => {
    const dir = workspace();
    const { removed } = slimWorkspace(dir, "@x/s");
    expect(removed.filter((path) => path.endsWith("/")).sort()).toEqual(["libs/testkit/", "services/s/test/", "services/t/"]);
    expect(removed).toContain("turbo.json");
    expect(removed).toContain("services/s/src/index.test.ts");
    expect(readFileSync(join(dir, "services/s/src/index.ts"), "utf8")).toBe("export {};\n");
    // Only a package's top-level test/ goes: a folder of that name deeper in src stays.
    expect(removed.some((path) => path.includes("test-data"))).toBe(false);
  });
});
