// Which commit a change is compared with, for `buf breaking` and for the migrations'
// backward-compatibility check. Every commit on main is deployable, so "the previous release"
// is what main ran before this change:
//   - an explicit ref: BASE_REF (e.g. a CI's target branch, or a release tag);
//   - on a branch other than main: main (the branch is what gets merged);
//   - on main (or a detached HEAD) with uncommitted changes under `paths`: HEAD;
//   - on main with a clean tree: HEAD~1 (the commit being tested is HEAD);
//   - no such commit (a first commit, a shallow clone): nothing to compare with.
import { git } from "./repo.ts";

export type Baseline = { ref: string; sha: string; why: string } | { ref: undefined; why: string };

export function baseline(root: string, paths: string[], env: NodeJS.ProcessEnv = process.env): Baseline {
  const resolve = (ref: string) => git(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  const explicit = env.BASE_REF?.trim();
  if (explicit) {
    const sha = resolve(explicit);
    if (!sha) throw new Error(`BASE_REF=${explicit} is not a commit of this repository`);
    return { ref: explicit, sha, why: "BASE_REF" };
  }
  if (git(root, ["rev-parse", "--git-dir"]) === undefined) return { ref: undefined, why: "not a git repository" };
  const branch = git(root, ["rev-parse", "--abbrev-ref", "HEAD"]);
  const main = resolve("main");
  if (branch && branch !== "HEAD" && branch !== "main" && main) return { ref: "main", sha: main, why: `branch ${branch} against main` };
  const dirty = (git(root, ["status", "--porcelain", "--", ...paths]) ?? "") !== "";
  if (dirty) {
    const head = resolve("HEAD");
    return head ? { ref: "HEAD", sha: head, why: "uncommitted changes against HEAD" } : { ref: undefined, why: "no commit yet" };
  }
  const parent = resolve("HEAD~1");
  return parent ? { ref: "HEAD~1", sha: parent, why: "clean tree: HEAD against its parent" } : { ref: undefined, why: "HEAD has no parent (first commit or shallow clone)" };
}

/** True when `path` exists in the tree of commit `sha`. */
export function existsAt(root: string, sha: string, path: string): boolean {
  return git(root, ["cat-file", "-e", `${sha}:${path}`]) !== undefined;
}
