// Handlers through an in-memory Connect transport: message mapping (Structs, optional fields,
// timestamps) and domain errors, without a network server.
import { Writable } from "node:stream";
import { createClient, createRouterTransport, type Client, type Interceptor } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest, type Kysely } from "@support/db";
import { isAppError } from "@support/errors";
import { createLogger } from "@support/logging";
import { ContentService } from "@support/proto";
import { appErrorToConnect, connectToAppError } from "@support/rpc";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { createCompany } from "./companies/company.service.ts";
import { loadContentConfig } from "./config.ts";
import type { ContentDatabase } from "./database.ts";
import { createEnvironment, createGame } from "./games/game.service.ts";
import { migrations } from "./migrations/index.ts";
import { registerRoutes } from "./routes.ts";
import { createTestDb } from "../test/db.ts";
import type { ContentDeps } from "./context.ts";

// What libs/rpc's server does for real: domain errors become Connect errors with their code.
const mapAppErrors: Interceptor = (next) => async (request) => {
  try {
    return await next(request);
  } catch (error) {
    throw isAppError(error) ? appErrorToConnect(error) : error;
  }
};

let infra: TestInfra;
let db: Kysely<ContentDatabase>;
let client: Client<typeof ContentService>;

beforeAll(async () => {
  infra = await createTestInfra();
  db = createTestDb(infra.databaseUrl, 2);
  await migrateToLatest(db as unknown as Kysely<unknown>, "content", migrations);
  const deps = {
    config: loadContentConfig(infra.env),
    logger: createLogger({ service: "content-routes-test", destination: new Writable({ write: (_c, _e, done) => done() }) }),
    db,
  } as ContentDeps; // the routes use neither NATS nor the relay
  const transport = createRouterTransport((router) => registerRoutes(router, deps), { router: { interceptors: [mapAppErrors] } });
  client = createClient(ContentService, transport);
});

afterAll(async () => {
  await db?.destroy();
  await infra?.stop();
});

describe("content.v1 handlers", () => {
  it("carries localization maps with null values through Structs and returns {} for absent details", async () => {
    const company = await createCompany(db, { name: "Routes" });
    const { announcement } = await client.putAnnouncement({ companyId: company.id, shortContent: { en: "Hi", fr: null } });
    expect(announcement?.gameId).toBeUndefined();
    expect(announcement?.shortContent).toEqual({ en: "Hi", fr: null });
    expect(announcement?.longContent).toEqual({});
  });

  it("answers an environment without any announcement with source none and no announcement", async () => {
    const company = await createCompany(db, { name: "Routes" });
    const game = await createGame(db, company.id, { name: "G", slug: "g", languages: ["en"] });
    const environment = await createEnvironment(db, company.id, game.id, { name: "production" });
    const resolved = await client.resolveAnnouncement({ companyId: company.id, environmentId: environment.id });
    expect(resolved.source).toBe("none");
    expect(resolved.announcement).toBeUndefined();
    const { game: listed } = await client.getGame({ companyId: company.id, gameId: game.id });
    expect(listed?.metadataJwks).toBeUndefined();
    expect(listed?.createdAt?.seconds).toBe(BigInt(Math.floor(game.createdAt.getTime() / 1000)));
  });

  it("turns domain errors into Connect errors with the domain code", async () => {
    const company = await createCompany(db, { name: "Routes" });
    const error = await client.getGame({ companyId: company.id, gameId: "00000000-0000-4000-8000-000000000000" }).catch((e: unknown) => e);
    expect(connectToAppError(error)).toMatchObject({ code: "not_found", message: "game not found" });
    const invalid = await client.putAnnouncement({ companyId: company.id, shortContent: { de: "Hallo" } }).catch((e: unknown) => e);
    expect(connectToAppError(invalid)).toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/shortContent/en" }] } });
  });
});
