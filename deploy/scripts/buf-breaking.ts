// `buf breaking` of proto/ (rules: buf.yaml, FILE) against the baseline of releases.ts: main
// from a branch, the last commit from main. Passes when there is nothing to compare with.
// Run: pnpm --filter @support/deploy buf:breaking   (BASE_REF=<ref> to choose the baseline)
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { baseline, existsAt } from "./releases.ts";
import { repoRoot } from "./repo.ts";

export interface BreakingResult {
  /** The baseline, or why there is none. */
  against: string;
  /** null when skipped. */
  code: number | null;
  output: string;
}

export function bufBreaking(root: string, options: { env?: NodeJS.ProcessEnv; buf?: string } = {}): BreakingResult {
  const env = options.env ?? process.env;
  const buf = options.buf ?? join(root, "node_modules", ".bin", "buf");
  const base = baseline(root, ["proto"], env);
  if (base.ref === undefined) return { against: `nothing (${base.why})`, code: null, output: "" };
  if (!existsAt(root, base.sha, "proto")) return { against: `nothing (${base.ref} has no proto/)`, code: null, output: "" };
  const input = base.ref === "main" ? ".git#branch=main,subdir=proto" : `.git#ref=${base.sha},subdir=proto`;
  const result = spawnSync(buf, ["breaking", "proto", "--against", input], { cwd: root, encoding: "utf8" });
  if (result.error) throw result.error;
  return { against: `${base.ref} (${base.why}): ${input}`, code: result.status, output: `${result.stdout}${result.stderr}` };
}

if (import.meta.main) {
  const result = bufBreaking(repoRoot());
  console.log(`buf breaking against ${result.against}`);
  if (result.output) console.log(result.output.trimEnd());
  process.exit(result.code ?? 0);
}
