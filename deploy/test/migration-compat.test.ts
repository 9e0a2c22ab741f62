// Each service's migrations against the previous release (deploy/scripts/releases.ts: the last
// commit, or main from a branch): the previous release's image migrates a fresh schema, this
// tree's migrations upgrade it, the schema change must follow the expand-only rule, and the
// previous release's service must still start and serve on the new schema, as it does while a
// rollout replaces its pods.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestInfra, createTestServiceIdentities, freePort, IDENTITY_PROCESSES, randomId, type IdentityProcess, type TestInfra } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVICES, type ServiceName } from "../image/spec.ts";
import { baseline, type Baseline } from "../scripts/releases.ts";
import { repoRoot } from "../scripts/repo.ts";
import {
  buildImage,
  grpcHealthCheck,
  openForRuntimeUser,
  run,
  runMigrations,
  startContainer,
  useRepoTools,
  waitForHttp200,
  type BuiltImage,
} from "./support/image-build.ts";
import { dropRoles, provisionServiceRoles } from "./support/roles.ts";
import { compatibilityViolations, snapshotSchema, type Column } from "./support/schema-compat.ts";

const root = repoRoot();
const INTERNAL = SERVICES.filter((image) => image.migrates);

let base: Baseline;
let infra: TestInfra | undefined;
let work: string | undefined;
const previous = new Map<ServiceName, BuiltImage>();
/** The processes of the previous release: its trust may name only those (it refuses others at start). */
const previousProcesses: string[] = [];
const createdRoles: string[] = [];
const rolePrefix = `t${randomId(6)}_`;

beforeAll(async () => {
  base = baseline(root, ["services", "libs", "pnpm-lock.yaml"]);
  if (base.ref === undefined) return;
  useRepoTools(root);
  infra = await createTestInfra();
  work = mkdtempSync(join(tmpdir(), "support-previous-"));
  openForRuntimeUser(work);
  const source = join(work, "source");
  mkdirSync(source);
  execFileSync("sh", ["-c", `git archive --format=tar "$0" | tar -x -C "$1"`, base.sha, source], { cwd: root });
  for (const name of IDENTITY_PROCESSES) {
    if (name === "admin" || name === "gateway" || existsSync(join(source, "services", name))) previousProcesses.push(name);
  }
  for (const image of INTERNAL) {
    if (!existsSync(join(source, "services", image.name, "src", "migrate.ts"))) continue; // new service: nothing to be compatible with
    previous.set(
      image.name,
      await buildImage(image, {
        context: source,
        workDir: join(work, image.name),
        slimScriptRoot: root,
        // The previous lockfile may name versions this store lacks: fetch what is missing.
        installFlags: ["--prefer-offline", "--reporter=append-only"],
      }),
    );
  }
}, 240_000);

afterAll(async () => {
  await infra?.stop();
  if (infra) await dropRoles(infra.databaseUrl, createdRoles).catch(() => undefined);
  if (work) rmSync(work, { recursive: true, force: true });
}, 60_000);

describe("the expand-only rule", () => {
  const col = (table: string, column: string, more: Partial<Column> = {}): Column => ({ table, column, type: "text", nullable: true, hasDefault: false, ...more });

  it("accepts new tables, new nullable or defaulted columns, and relaxed constraints", () => {
    const before = [col("t", "id", { nullable: false }), col("t", "a", { nullable: false })];
    const after = [col("t", "id", { nullable: false }), col("t", "a"), col("t", "b"), col("t", "c", { nullable: false, hasDefault: true }), col("u", "id", { nullable: false })];
    expect(compatibilityViolations(before, after)).toEqual([]);
  });

  it("refuses drops, renames, type changes and new required columns", () => {
    const before = [col("t", "id", { nullable: false }), col("t", "a"), col("t", "n", { type: "integer" }), col("gone", "id")];
    const after = [col("t", "id", { nullable: false }), col("t", "a", { nullable: false }), col("t", "n", { type: "bigint" }), col("t", "req", { nullable: false })];
    expect(compatibilityViolations(before, after)).toEqual([
      "table gone was dropped or renamed",
      "column t.a became NOT NULL",
      "column t.n changed type from integer to bigint",
      "new column t.req is NOT NULL without a default",
    ]);
  });
});

describe("migrations against the previous release", () => {
  it.for(INTERNAL.map((image) => image.name))(
    "%s: upgrades the previous release's schema expand-only, and the previous release still serves on it",
    { timeout: 90_000 },
    async (service, context) => {
      if (base.ref === undefined) {
        context.skip(`no previous release: ${base.why}`);
        return;
      }
      const old = previous.get(service);
      if (!old) {
        context.skip(`${service} did not exist at ${base.ref}`);
        return;
      }
      const db = infra!;
      const roles = provisionServiceRoles(root, db.databaseUrl, service, rolePrefix);
      createdRoles.push(roles.owner, roles.app);
      const env = {
        NATS_URL: db.natsUrl,
        NATS_PREFIX: db.natsPrefix,
        LOG_LEVEL: "info",
        CURSOR_SECRET: "compat-test",
        // A release whose migrate command still read the whole webhooks configuration needed it.
        WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString("base64"),
        // Content serves in production only with the key of its users' two-factor secrets.
        TOTP_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString("base64"),
        // The email service serves in production only with a relay (nothing is sent here).
        SMTP_URL: "smtp://127.0.0.1:2525",
        AUTO_CLOSE_INTERVAL_MS: "0",
        // A release that checks service identities refuses to start in production without them.
        ...createTestServiceIdentities().env(service as IdentityProcess, previousProcesses),
        ...db.env,
      };

      await runMigrations(old, { ...env, DATABASE_URL: roles.migrationUrl });
      const before = await snapshotSchema(db.databaseUrl, service);
      // This tree's migrations, from the working tree, as the schema owner.
      await run(["node", "src/migrate.ts"], { cwd: join(root, "services", service), env: { ...process.env, ...env, DATABASE_URL: roles.migrationUrl } });
      const after = await snapshotSchema(db.databaseUrl, service);
      expect(compatibilityViolations(before, after), `schema change of ${service} since ${base.ref} (${base.why})`).toEqual([]);

      const port = await freePort();
      const running = startContainer(old, { ...env, DATABASE_URL: roles.appUrl }, port);
      // A failure above is the one to report; the exit code only when all else held.
      let failed = false;
      try {
        await waitForHttp200(running, "/readyz");
        expect(await grpcHealthCheck(port)).toBe(1);
        // Let the outbox relay and consumers poll the new schema a few times.
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        const errors = running
          .output()
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as { level: number; msg?: string })
          .filter((entry) => entry.level >= 50);
        expect(errors, running.output().slice(-3000)).toEqual([]);
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        const code = await running.stop();
        if (!failed) expect(code, running.output().slice(-3000)).toBe(0);
      }
    },
  );
});
