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
    ["256 MiB", 256 * MiB, "160"],
    ["512 MiB (the services' limit in the base manifests and dev)", 512 * MiB, "352"],
    ["768 MiB (production)", 768 * MiB, "544"],
    ["1 GiB", 1024 * MiB, "736"],
    ["4 GiB", 4096 * MiB, "3040"],
    ["a limit that is not a whole MiB (rounded down)", 300 * MiB + 12345, "193"],
    ["128 MiB: the floor of 32 MiB", 128 * MiB, "64"],
    ["64 MiB: the floor of 32 MiB", 64 * MiB, "32"],
  ])("cgroup v2, %s", (_label, limit, expected) => {
    expect(sizeFor({ "memory.max": `${limit}\n` })).toBe(expected);
  });

  it("is 75 % of the limit less 32 MiB, never below 32 MiB", () => {
    for (let mib = 48; mib <= 8192; mib += 173) {
      expect(sizeFor({ "memory.max": String(mib * MiB) })).toBe(String(Math.max(32, Math.floor((mib * 3) / 4) - 32)));
    }
  });

  it("reads cgroup v1's memory.limit_in_bytes (the memory controller's folder, or the root itself)", () => {
    expect(sizeFor({ "memory/memory.limit_in_bytes": `${512 * MiB}\n` })).toBe("352");
    expect(sizeFor({ "memory.limit_in_bytes": `${256 * MiB}\n` })).toBe("160");
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
    expect(result.stdout).toBe(`--enable-source-maps${expected ? ` --max-old-space-size=${expected}` : ""}|a b c`);
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

  it("give every service a heap well above the ~200 MB it lives in, with room for the rest of the process under the limit", () => {
    for (const { name, request, limit } of limits) {
      const heapMiB = Number(sizeFor({ "memory.max": String(bytes(limit)) }));
      expect(heapMiB, name).toBeGreaterThanOrEqual(256);
      expect(heapMiB * MiB, name).toBeLessThan(bytes(limit) * 0.8);
      // The request covers what a service uses at rest (about 200 MB resident).
      expect(bytes(request), name).toBeGreaterThanOrEqual(160 * MiB);
      expect(bytes(request), name).toBeLessThanOrEqual(bytes(limit));
    }
  });
});
