// `buf breaking` (FILE rules) of proto/ against the baseline: main from a branch, the previous
// commit on main. The first test checks this repository; the others check, on scratch
// repositories, that the baseline is chosen right and that a break is caught.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bufBreaking } from "../scripts/buf-breaking.ts";
import { repoRoot } from "../scripts/repo.ts";

const root = repoRoot();
const buf = join(root, "node_modules", ".bin", "buf");
const scratch: string[] = [];
afterAll(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const PROTO = `syntax = "proto3";

package demo.v1;

// A thing.
message Thing {
  string id = 1;
  string name = 2;
}
`;

function repo(): { dir: string; git: (...args: string[]) => string; write: (text: string) => void } {
  const dir = mkdtempSync(join(tmpdir(), "buf-breaking-"));
  scratch.push(dir);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=test@example.com", "-c", "user.name=test", "-c", "commit.gpgsign=false", ...args], { cwd: dir, encoding: "utf8" });
  // The repository's buf.yaml: the same module layout and breaking rules (FILE).
  cpSync(join(root, "buf.yaml"), join(dir, "buf.yaml"));
  mkdirSync(join(dir, "proto", "demo", "v1"), { recursive: true });
  const write = (text: string) => writeFileSync(join(dir, "proto", "demo", "v1", "demo.proto"), text);
  git("init", "-q", "-b", "main");
  write(PROTO);
  git("add", "-A");
  git("commit", "-qm", "v1");
  return { dir, git, write };
}

const noBase = { ...process.env, BASE_REF: "" };
const withoutName = PROTO.replace("  string name = 2;\n", "");
const withEmail = PROTO.replace("  string name = 2;\n", "  string name = 2;\n  string email = 3;\n");

describe("buf breaking", () => {
  it("finds no breaking change in this repository's protos against their baseline", () => {
    const result = bufBreaking(root);
    expect(result.output, `against ${result.against}`).toBe("");
    expect(result.code ?? 0).toBe(0);
  });

  it("passes when there is nothing to compare with (a first commit)", () => {
    const { dir } = repo();
    expect(bufBreaking(dir, { env: noBase, buf })).toMatchObject({ code: null });
  });

  it("on main with a clean tree, catches a break committed in the last commit", () => {
    const { dir, git, write } = repo();
    write(withoutName);
    git("commit", "-qam", "drop name");
    const result = bufBreaking(dir, { env: noBase, buf });
    expect(result.against).toMatch(/^HEAD~1/);
    expect(result.code).toBe(100);
    expect(result.output).toMatch(/field "2" with name "name"/);
  });

  it("on main, catches an uncommitted break against HEAD, and lets an added field through", () => {
    const { dir, write } = repo();
    write(withEmail);
    expect(bufBreaking(dir, { env: noBase, buf })).toMatchObject({ code: 0 });
    write(withoutName);
    expect(bufBreaking(dir, { env: noBase, buf })).toMatchObject({ code: 100 });
  });

  it("on a branch, compares with main (a fresh clone of a branch included)", () => {
    const { dir, git, write } = repo();
    git("checkout", "-qb", "feature");
    write(withEmail);
    git("commit", "-qam", "add email");
    write(withoutName);
    git("commit", "-qam", "drop name");
    const result = bufBreaking(dir, { env: noBase, buf });
    expect(result.against).toMatch(/^main/);
    expect(result.code).toBe(100);
    expect(readFileSync(join(dir, "proto", "demo", "v1", "demo.proto"), "utf8")).toBe(withoutName);
  });
});
