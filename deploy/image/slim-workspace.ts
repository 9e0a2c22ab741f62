// Slims a pruned, installed workspace down to what one service runs: the service and the workspace
// packages in its production dependency closure, without tests and tooling files.
// Runs in the image's build stage as `node slim-workspace.ts <package>` from the workspace root,
// with Node alone (no dependencies), after `turbo prune` and `pnpm install --prod`.
// `turbo prune` also copies packages the service needs only for its tests (testkit, and for the
// gateway the other services): their folders go, so the image holds only its service and its libs.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";

interface PackageJson {
  name?: string;
  dependencies?: Record<string, string>;
}

/** Folders of the workspace packages, from pnpm-workspace.yaml (`dir/*` and `dir` entries). */
export function workspacePackageDirs(root: string): string[] {
  const yaml = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8");
  const block = /^packages:\s*\n((?:[ \t]*-.*\n?)+)/m.exec(yaml)?.[1] ?? "";
  const patterns = [...block.matchAll(/-\s*["']?([^"'\n]+?)["']?\s*$/gm)].map((m) => m[1]!.trim());
  const dirs: string[] = [];
  for (const pattern of patterns) {
    if (pattern.endsWith("/*")) {
      const parent = join(root, pattern.slice(0, -2));
      if (!existsSync(parent)) continue;
      for (const entry of readdirSync(parent)) {
        const dir = join(parent, entry);
        if (existsSync(join(dir, "package.json"))) dirs.push(dir);
      }
    } else if (!pattern.includes("*") && existsSync(join(root, pattern, "package.json"))) {
      dirs.push(join(root, pattern));
    } else if (pattern.includes("*")) {
      throw new Error(`Unsupported workspace pattern ${pattern}`);
    }
  }
  return dirs;
}

function readPackage(dir: string): PackageJson {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageJson;
}

/** The package and the workspace packages it reaches through `dependencies` (not dev). */
export function productionClosure(root: string, pkg: string): Map<string, string> {
  const byName = new Map<string, string>();
  for (const dir of workspacePackageDirs(root)) {
    const name = readPackage(dir).name;
    if (name) byName.set(name, dir);
  }
  const closure = new Map<string, string>();
  const visit = (name: string) => {
    if (closure.has(name)) return;
    const dir = byName.get(name);
    if (!dir) throw new Error(`Workspace package ${name} is not in ${root}`);
    closure.set(name, dir);
    for (const [dep, spec] of Object.entries(readPackage(dir).dependencies ?? {})) {
      if (spec.startsWith("workspace:")) visit(dep);
    }
  };
  visit(pkg);
  return closure;
}

/** Folders of tests at a package's root (tests beside the code are *.test.ts files). */
const TEST_DIRS = new Set(["test", "__tests__"]);
const TOOLING_FILES = new Set(["vitest.config.ts", "tsconfig.json", "eslint.config.js", "buf.gen.yaml"]);
const ROOT_TOOLING = [".gitignore", ".gitattributes", ".npmrc", "turbo.json", "patches"];

function removeTests(dir: string, removed: string[], root: string, atPackageRoot = true): void {
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules") continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (atPackageRoot && TEST_DIRS.has(entry)) {
        rmSync(path, { recursive: true, force: true });
        removed.push(relative(root, path) + "/");
      } else {
        removeTests(path, removed, root, false);
      }
    } else if (/\.(test|spec)\.[cm]?[jt]s$/.test(entry) || TOOLING_FILES.has(entry)) {
      rmSync(path, { force: true });
      removed.push(relative(root, path));
    }
  }
}

export function slimWorkspace(root: string, pkg: string): { kept: string[]; removed: string[] } {
  const closure = productionClosure(root, pkg);
  const keep = new Set(closure.values());
  const removed: string[] = [];
  for (const dir of workspacePackageDirs(root)) {
    if (keep.has(dir)) continue;
    rmSync(dir, { recursive: true, force: true });
    removed.push(relative(root, dir) + "/");
  }
  for (const dir of keep) removeTests(dir, removed, root);
  for (const file of ROOT_TOOLING) {
    if (!existsSync(join(root, file))) continue;
    rmSync(join(root, file), { recursive: true, force: true });
    removed.push(file);
  }
  return { kept: [...closure.keys()], removed };
}

if (import.meta.main) {
  const pkg = process.argv[2];
  if (!pkg) {
    console.error("usage: node slim-workspace.ts <workspace package name>");
    process.exit(2);
  }
  const { kept, removed } = slimWorkspace(process.cwd(), pkg);
  console.log(`kept ${kept.join(", ")}`);
  console.log(`removed ${removed.length} paths: ${removed.filter((path) => path.endsWith("/")).join(" ")}`);
}
