// deploy/image/node-entrypoint.sh, run with sh as the images run it: the heap size it derives from
// a cgroup memory limit (v2 and v1 files under a stand-in cgroup root), and what it does to
// NODE_OPTIONS before it execs the command. container-images.test.ts checks it inside a real
// container with a real limit; the manifests' limits are checked against it here.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ENTRYPOINT_SCRIPT, SERVICES } from "../image/spec.ts";
import { repoRoot } from "../scripts/repo.ts";

const root = repoRoot();
const script = join(root, ENTRYPOINT_SCRIPT);
const scratch = mkdtempSync(join(tmpdir(), "node-entrypoint-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const MiB = 1024 * 1024;

let counter = 0;
/** A stand-in cgroup root holding `files` (path → content). */
function cgroupRoot(files: Record<string, string>): string {
  const dir = join(scratch, `cgroup-${counter++}`);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

function sizeFor(files: Record<string, string>): string {
  const result = spawnSync("sh", [script, "--max-old-space-size-for", cgroupRoot(files)], { encoding: "utf8" });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.trim();
}

describe("the heap size for a memory limit", () => {
  it.each([
    ["256 MiB", 256 * MiB, "64"],
    ["512 MiB (the services' limit in the base manifests and dev; what the soak benchmark runs with)", 512 * MiB, "128"],
    ["768 MiB (production)", 768 * MiB, "192"],
    ["1 GiB", 1024 * MiB, "256"],
    ["4 GiB", 4096 * MiB, "1024"],
    ["a limit that is not a whole MiB (rounded down)", 300 * MiB + 12345, "75"],
    ["128 MiB", 128 * MiB, "32"],
    ["64 MiB: the floor of 32 MiB", 64 * MiB, "32"],
  ])("cgroup v2, %s", (_label, limit, expected) => {
    expect(sizeFor({ "memory.max": `${limit}\n` })).toBe(expected);
  });

  it("is 25 % of the limit, never below 32 MiB", () => {
    for (let mib = 48; mib <= 8192; mib += 173) {
      expect(sizeFor({ "memory.max": String(mib * MiB) })).toBe(String(Math.max(32, Math.floor(mib / 4))));
    }
  });

  it("reads cgroup v1's memory.limit_in_bytes (the memory controller's folder, or the root itself)", () => {
    expect(sizeFor({ "memory/memory.limit_in_bytes": `${512 * MiB}\n` })).toBe("128");
    expect(sizeFor({ "memory.limit_in_bytes": `${256 * MiB}\n` })).toBe("64");
  });

  it.each([
    ["cgroup v2 without a limit (max)", { "memory.max": "max\n" }],
    ["cgroup v1 without a limit (2^63 rounded down to pages)", { "memory/memory.limit_in_bytes": "9223372036854771712\n" }],
    ["a limit beyond 1 PB", { "memory.max": "1125899906842624000\n" }],
    ["no cgroup file at all", {}],
    ["an empty file", { "memory.max": "" }],
    ["a limit of zero", { "memory.max": "0\n" }],
  ])("sets nothing for %s", (_label, files) => {
    expect(sizeFor(files)).toBe("");
  });
});

describe("what it runs", () => {
  function runThrough(env: Record<string, string>): { status: number | null; stdout: string } {
    const result = spawnSync("sh", [script, "sh", "-c", 'printf "%s|%s" "${NODE_OPTIONS-unset}" "$*"', "arg0", "a b", "c"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    });
    return { status: result.status, stdout: result.stdout };
  }

  it("execs the command with its arguments unchanged and keeps a heap size NODE_OPTIONS already sets", () => {
    expect(runThrough({ NODE_OPTIONS: "--max-old-space-size=100" })).toEqual({ status: 0, stdout: "--max-old-space-size=100|a b c" });
    expect(runThrough({ NODE_OPTIONS: "--enable-source-maps --max-old-space-size-percentage=50" }).stdout).toBe("--enable-source-maps --max-old-space-size-percentage=50|a b c");
  });

  it("on this machine, adds the size of this process's own cgroup limit, or nothing when it has none", () => {
    const v2 = spawnSync("sh", ["-c", "cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null"], { encoding: "utf8" }).stdout.trim();
    const expected = sizeFor(v2 === "" ? {} : { "memory.max": v2 });
    const result = runThrough({ NODE_OPTIONS: "--enable-source-maps" });
    expect(result.stdout).toBe(`--enable-source-maps${expected ? ` --max-old-space-size=${expected} --max-semi-space-size=8` : ""}|a b c`);
  });

  it("adds a young-generation cap beside the old-space size, and keeps one NODE_OPTIONS already sets", () => {
    const limited = cgroupRoot({ "memory.max": String(512 * MiB) });
    const run = (env: Record<string, string>) =>
      spawnSync("sh", [script, "sh", "-c", 'printf %s "$NODE_OPTIONS"'], {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NODE_ENTRYPOINT_CGROUP_ROOT: limited, ...env },
      }).stdout;
    expect(run({})).toBe("--max-old-space-size=128 --max-semi-space-size=8");
    expect(run({ NODE_OPTIONS: "--max-semi-space-size=4" })).toBe("--max-semi-space-size=4 --max-old-space-size=128");
  });

  it("passes the command's exit status through", () => {
    expect(spawnSync("sh", [script, "sh", "-c", "exit 7"]).status).toBe(7);
  });
});

describe("the manifests' memory limits", () => {
  const limits = SERVICES.map((image) => {
    const deployment = parse(readFileSync(join(root, "deploy/k8s/base", image.name, "deployment.yaml"), "utf8")) as {
      spec: { template: { spec: { containers: { name: string; resources: { requests: { memory: string }; limits: { memory: string } } }[] } } };
    };
    const container = deployment.spec.template.spec.containers.find((c) => c.name === image.name)!;
    return { name: image.name, request: container.resources.requests.memory, limit: container.resources.limits.memory };
  });
  const bytes = (quantity: string) => Number(/^(\d+)Mi$/.exec(quantity)?.[1]) * MiB;

  it("give every service the heap the soak benchmark measured (at least 128 MiB of old space), with room for the rest of the process under the limit", () => {
    for (const { name, request, limit } of limits) {
      const heapMiB = Number(sizeFor({ "memory.max": String(bytes(limit)) }));
      expect(heapMiB, name).toBeGreaterThanOrEqual(128);
      // Node itself (~90 MB), the 24 MiB young generation and Buffers fit beside the old space.
      expect((heapMiB + 24 + 128) * MiB, name).toBeLessThanOrEqual(bytes(limit));
      // The request covers what a service uses at rest.
      expect(bytes(request), name).toBeGreaterThanOrEqual(160 * MiB);
      expect(bytes(request), name).toBeLessThanOrEqual(bytes(limit));
    }
  });
});
