// `pnpm typecheck`: every workspace package's tsconfig.json and scripts/tsconfig.json, checked
// the way `tsc -p <package>` checks each, but packages with the same compiler options share one
// program. A package's sources reach its dependencies' sources (workspace packages export their
// TypeScript), so one tsc per package re-checked the libraries for every package that imports
// them: 28 processes, 100 s on the 2-core machine. A package whose options differ (the web
// support page: DOM, JSX, bundler resolution) gets a program of its own.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";

const root = dirname(import.meta.dirname);

/** The folders of the workspace's packages (pnpm-workspace.yaml), plus scripts/. */
function projectDirs(): string[] {
  const workspace = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8");
  const globs = [...workspace.matchAll(/^\s+-\s+["']?([^"'\n]+?)["']?\s*$/gm)].map((m) => m[1] ?? "").filter((g) => g && !g.includes("@"));
  const dirs = globs.flatMap((glob) => {
    if (!glob.endsWith("/*")) return [join(root, glob)];
    const parent = join(root, glob.slice(0, -2));
    return existsSync(parent) ? readdirSync(parent).map((entry) => join(parent, entry)) : [];
  });
  return [...dirs, join(root, "scripts")].filter((dir) => existsSync(join(dir, "tsconfig.json"))).sort();
}

function fail(diagnostics: readonly ts.Diagnostic[]): never {
  console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" }));
  process.exit(1);
}

// Projects grouped by their compiler options (paths and the config file's own name aside).
const groups = new Map<string, { options: ts.CompilerOptions; files: Set<string>; projects: string[] }>();
for (const dir of projectDirs()) {
  const configPath = join(dir, "tsconfig.json");
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) fail([read.error]);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dir, undefined, configPath);
  if (parsed.errors.length > 0) fail(parsed.errors);
  const { configFilePath: _configFilePath, ...options } = parsed.options;
  const key = JSON.stringify(options, Object.keys(options).sort());
  const group = groups.get(key) ?? { options: parsed.options, files: new Set<string>(), projects: [] };
  for (const file of parsed.fileNames) group.files.add(file);
  group.projects.push(relative(root, dir) || ".");
  groups.set(key, group);
}

let errors = 0;
for (const group of groups.values()) {
  const started = Date.now();
  const program = ts.createProgram({ rootNames: [...group.files], options: group.options });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  errors += diagnostics.length;
  if (diagnostics.length > 0) {
    console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" }));
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`typecheck: ${group.projects.length} project(s), ${group.files.size} files, ${diagnostics.length} error(s), ${seconds} s: ${group.projects.join(" ")}`);
}
process.exit(errors > 0 ? 1 : 0);
