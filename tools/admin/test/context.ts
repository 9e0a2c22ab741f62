// The content and players services started in-process for the admin tool's tests: one database
// and NATS prefix (testkit) shared by both, each service on a free port with its migrations
// applied, an admin token and service identity keys (the tool signs with the `admin` key as
// deployed), and clients and pools to check what the tool did. The tool runs inside the test's
// process (its `main`, with an environment of its own) or, where the process itself is under
// test, as a child process.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { Client } from "@connectrpc/connect";
import { connectBus } from "@support/bus";
import { createServer as createContentServer, loadContentConfig, migrations as contentMigrations, type ContentDatabase } from "@support/content";
import { createDb, migrateToLatest, type Kysely } from "@support/db";
import { createLogger } from "@support/logging";
import { createServer as createPlayersServer, loadPlayersConfig, migrations as playersMigrations, type PlayersDatabase } from "@support/players";
import { CompanySettingsService, ContentService } from "@support/proto";
import { createServiceCaller, createServiceClient } from "@support/rpc";
import type { ServiceHost } from "@support/runtime";
import { runAdminCommand } from "../src/in-process.ts";
import { createTestInfra, createTestServiceIdentities, type TestInfra } from "@support/testkit";

const cliPath = fileURLToPath(new URL("../src/cli.ts", import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface AdminTestContext {
  infra: TestInfra;
  token: string;
  contentUrl: string;
  playersUrl: string;
  /** Content's read RPCs, to check what the tool created. */
  content: Client<typeof ContentService>;
  /** Content's settings RPCs as the gateway calls them for a signed-in admin: what "the dashboard" does. */
  settings: Client<typeof CompanySettingsService>;
  contentDb: Kysely<ContentDatabase>;
  playersDb: Kysely<PlayersDatabase>;
  contentServer: ServiceHost;
  /**
   * Runs `pnpm admin <args>` against the two services inside this process (the command's `main`
   * with its own environment, stdin, stdout and stderr); `env` adds to or overrides its environment.
   */
  runCli(args: string[], options?: { stdin?: string; env?: Record<string, string> }): Promise<CliRun>;
  /** The same as a child process, `node src/cli.ts <args>`, as an operator runs it. */
  runCliProcess(args: string[], options?: { stdin?: string; env?: Record<string, string> }): Promise<CliRun>;
  stop(): Promise<void>;
}

export async function startServices(): Promise<AdminTestContext> {
  const infra = await createTestInfra();
  const hosts: ServiceHost[] = [];
  const token = randomBytes(24).toString("base64url");
  const identities = createTestServiceIdentities();
  try {
    const logger = createLogger({ service: "admin-test", level: process.env.TEST_LOG_LEVEL ?? "silent" });
    const env = { ...infra.env, NATS_PREFIX: infra.natsPrefix, HOST: "127.0.0.1", LOG_LEVEL: "silent", ADMIN_TOKEN: token };

    const contentDb = createDb<ContentDatabase>({ url: infra.databaseUrl, schema: "content", maxConnections: 5 });
    await migrateToLatest(contentDb as unknown as Kysely<unknown>, "content", contentMigrations);
    const contentServer = createContentServer({
      config: { ...loadContentConfig({ ...env, ...identities.env("content") }), PORT: 0 },
      logger,
      db: contentDb,
      nc: await connectBus(infra.natsUrl, "content-test"),
    });
    hosts.push(contentServer);
    const contentUrl = `http://127.0.0.1:${(await contentServer.start()).port}`;

    const playersDb = createDb<PlayersDatabase>({ url: infra.databaseUrl, schema: "players", maxConnections: 5 });
    await migrateToLatest(playersDb, "players", playersMigrations);
    const playersServer = createPlayersServer({
      config: { ...loadPlayersConfig({ ...env, ...identities.env("players"), CONTENT_URL: contentUrl }), PORT: 0, EXPIRY_SWEEP_INTERVAL_MS: 0 },
      logger,
      db: playersDb,
      nc: await connectBus(infra.natsUrl, "players-test"),
    });
    hosts.push(playersServer);
    const playersUrl = `http://127.0.0.1:${(await playersServer.start()).port}`;

    const cliEnv = (extra: Record<string, string> = {}) => ({
      PATH: process.env.PATH,
      CONTENT_URL: contentUrl,
      PLAYERS_URL: playersUrl,
      ADMIN_TOKEN: token,
      ...identities.env("admin"),
      LOG_LEVEL: "warn",
      ...extra,
    });
    const runCli: AdminTestContext["runCli"] = (args, options = {}) => runAdminCommand(args, { env: cliEnv(options.env), stdin: options.stdin });
    const runCliProcess: AdminTestContext["runCliProcess"] = (args, options = {}) =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [cliPath, ...args], { env: cliEnv(options.env), stdio: ["pipe", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stdout, stderr }));
        child.stdin.end(options.stdin ?? "");
      });

    return {
      infra,
      token,
      contentUrl,
      playersUrl,
      // Content's reads as the gateway makes them.
      content: createServiceClient(ContentService, contentUrl, { identity: createServiceCaller("gateway", identities.env("gateway").SERVICE_IDENTITY_KEY) }),
      settings: createServiceClient(CompanySettingsService, contentUrl, { identity: createServiceCaller("gateway", identities.env("gateway").SERVICE_IDENTITY_KEY) }),
      contentDb,
      playersDb,
      contentServer,
      runCli,
      runCliProcess,
      stop: async () => {
        for (const host of hosts.reverse()) await host.stop();
        await infra.stop();
      },
    };
  } catch (error) {
    for (const host of hosts.reverse()) await host.stop().catch(() => undefined);
    await infra.stop();
    throw error;
  }
}
