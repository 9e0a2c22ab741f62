// A local stand-in for the official Node image (node:<version>-bookworm-slim), for engines that
// reach no image registry: Debian bookworm (debootstrap, minbase) with this repository's Node in
// /usr/local/bin, npm beside it and the user node (1000:1000), the layout the Dockerfiles expect.
// The root filesystem is kept as a tarball in the user's cache folder, named by everything it is
// made from, so that only the first run on a machine pays for debootstrap.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, chmodSync, chownSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { RUNTIME_UID, type ToolVersions } from "../../image/spec.ts";
import { ensureDebianPackages, type DockerEngine } from "./docker-engine.ts";

/** Bump when the recipe below changes, so that cached root filesystems are made again. */
const RECIPE = 1;
const SUITE = "bookworm";
const DEBOOTSTRAP = "/usr/sbin/debootstrap";
/** Where the host's extra CA certificates go in the image (see `hostExtraCa`). */
const EXTRA_CA_IN_IMAGE = "/usr/local/share/ca-certificates/host-node-extra-ca.crt";

export function imageCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "support-images");
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(" ")} exited ${code}:\n${output.slice(-4000)}`))));
  });
}

/** The npm on the host's PATH (the machine's Node installation has one): its folder and version. */
function hostNpm(): { dir: string; version: string } {
  // From the executable: `npm root --global` would answer for whichever Node runs it (under pnpm, the repository's).
  const found = spawnSync("sh", ["-c", "command -v npm"], { encoding: "utf8" });
  const bin = found.status === 0 ? found.stdout.trim() : "";
  const dir = bin ? dirname(dirname(realpathSync(bin))) : "";
  const manifest = join(dir, "package.json");
  if (!dir || !existsSync(manifest) || (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name !== "npm") {
    throw new Error("The local base image copies the host's npm (the Dockerfiles' tools stage installs pnpm and turbo with it): no npm found on PATH");
  }
  return { dir, version: (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version };
}

/**
 * The CA certificates the host's Node trusts beyond its own (NODE_EXTRA_CA_CERTS): where the
 * machine reaches the npm registry through a TLS-inspecting proxy, the builds inside the engine
 * (npm, pnpm) need them too. Absent, nothing is added.
 */
function hostExtraCa(): string | undefined {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  return file && existsSync(file) ? readFileSync(file, "utf8") : undefined;
}

/** Unmounts what debootstrap may have left mounted inside `rootfs` (after a failure). */
function unmountBelow(rootfs: string): void {
  const mounts = readFileSync("/proc/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[1] ?? "")
    .filter((point) => point.startsWith(`${rootfs}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of mounts) spawnSync("umount", ["-l", point]);
}

async function makeRootfsTarball(tarball: string, npm: { dir: string }, ca: string | undefined): Promise<void> {
  ensureDebianPackages(["debootstrap"], [DEBOOTSTRAP], "The local base image");
  const cache = imageCacheDir();
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(join(cache, "rootfs-"));
  const rootfs = join(work, "rootfs");
  try {
    // The mirror is debootstrap's default for the suite (Debian's own).
    await run(DEBOOTSTRAP, ["--variant=minbase", SUITE, rootfs]);
    unmountBelow(rootfs);
    for (const dir of ["var/cache/apt/archives", "var/lib/apt/lists"]) {
      for (const entry of readdirSync(join(rootfs, dir))) if (entry !== "partial" && entry !== "lock") rmSync(join(rootfs, dir, entry), { recursive: true, force: true });
    }
    // Node and npm where the official image has them.
    const node = join(rootfs, "usr/local/bin/node");
    copyFileSync(process.execPath, node);
    chmodSync(node, 0o755);
    const nodeModules = join(rootfs, "usr/local/lib/node_modules");
    mkdirSync(nodeModules, { recursive: true });
    cpSync(npm.dir, join(nodeModules, "npm"), { recursive: true, verbatimSymlinks: true });
    symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(rootfs, "usr/local/bin/npm"));
    symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", join(rootfs, "usr/local/bin/npx"));
    // The official image's user `node`.
    appendFileSync(join(rootfs, "etc/passwd"), `node:x:${RUNTIME_UID}:${RUNTIME_UID}::/home/node:/bin/sh\n`);
    appendFileSync(join(rootfs, "etc/group"), `node:x:${RUNTIME_UID}:\n`);
    mkdirSync(join(rootfs, "home/node"));
    chownSync(join(rootfs, "home/node"), RUNTIME_UID, RUNTIME_UID);
    if (ca !== undefined) {
      mkdirSync(join(rootfs, EXTRA_CA_IN_IMAGE, ".."), { recursive: true });
      appendFileSync(join(rootfs, EXTRA_CA_IN_IMAGE), ca);
    }
    const partial = join(work, "rootfs.tar");
    await run("tar", ["--numeric-owner", "-C", rootfs, "-cf", partial, "."]);
    // Older tarballs (other inputs) go: one base is kept.
    for (const entry of readdirSync(cache)) if (/^node-.*\.tar$/.test(entry)) rmSync(join(cache, entry), { force: true });
    renameSync(partial, tarball);
  } finally {
    unmountBelow(rootfs);
    rmSync(work, { recursive: true, force: true });
  }
}

export interface LocalBaseImage {
  /** The image's name in the engine: pass it as the NODE_IMAGE build argument. */
  tag: string;
  /** Whether this run made the root filesystem (false: it came from the cache). */
  madeRootfs: boolean;
}

/** Imports the local base image into `engine`, making (and caching) its root filesystem first when needed. */
export async function importLocalBaseImage(engine: DockerEngine, versions: ToolVersions): Promise<LocalBaseImage> {
  if (process.versions.node !== versions.node) {
    throw new Error(`The local base image takes this Node (${process.versions.node}); the repository pins ${versions.node}: run the test through pnpm`);
  }
  const npm = hostNpm();
  const ca = hostExtraCa();
  const key = createHash("sha256")
    .update(JSON.stringify({ recipe: RECIPE, suite: SUITE, variant: "minbase", node: versions.node, npm: npm.version, ca: ca ?? null }))
    .digest("hex")
    .slice(0, 16);
  const tarball = join(imageCacheDir(), `node-${versions.node}-${SUITE}-${key}.tar`);
  const madeRootfs = !existsSync(tarball);
  if (madeRootfs) await makeRootfsTarball(tarball, npm, ca);
  const tag = `support-local/node:${versions.node}-${SUITE}-${key}`;
  const changes = ["ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 'CMD ["node"]'];
  if (ca !== undefined) changes.push(`ENV NODE_EXTRA_CA_CERTS=${EXTRA_CA_IN_IMAGE}`);
  await engine.docker(["import", ...changes.flatMap((change) => ["--change", change]), tarball, tag]);
  return { tag, madeRootfs };
}
