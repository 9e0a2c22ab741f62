// The games projection the email channel keeps from content's events, against a real Postgres:
// a game changed in the settings (content.game.updated) takes its new name, languages and
// blockUnverifiedPlayers, and a rotated token (content.environment.token_rotated) replaces the
// environment's token, so that the "continue on the web" links written from then on carry it.
import { randomUUID } from "node:crypto";
import { createDb, migrateToLatest, type Kysely } from "@support/db";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmailDatabase } from "../src/database.ts";
import { continueLink, knownGame, rememberEnvironment, rememberGame, rememberRotatedToken } from "../src/games/game.service.ts";
import { migrations } from "../src/migrations/index.ts";

let infra: TestInfra;
let db: Kysely<EmailDatabase>;

beforeAll(async () => {
  infra = await createTestInfra();
  db = createDb<EmailDatabase>({ url: infra.databaseUrl, schema: "email", maxConnections: 2 });
  await migrateToLatest(db, "email", migrations);
}, 60_000);

afterAll(async () => {
  await db?.destroy();
  await infra?.stop();
});

describe("the games projection", () => {
  it("follows a changed game and a rotated token", async () => {
    const ctx = { db };
    const gameId = randomUUID();
    const environmentId = randomUUID();
    const [first, second] = [randomUUID(), randomUUID()];
    await rememberGame(ctx, { gameId, companyId: randomUUID(), name: "Galaxy", languages: ["en", "de"], blockUnverifiedPlayers: false });
    await rememberEnvironment(ctx, { environmentId, gameId, token: first, at: new Date(Date.now() - 60_000) });
    expect(await knownGame(ctx, gameId)).toMatchObject({ name: "Galaxy", environmentToken: first });

    await rememberGame(ctx, { gameId, companyId: randomUUID(), name: "Galaxy II", languages: ["en"], blockUnverifiedPlayers: false });
    await rememberRotatedToken(ctx, { environmentId, gameId, token: second, at: new Date() });
    // A redelivery changes nothing.
    await rememberRotatedToken(ctx, { environmentId, gameId, token: second, at: new Date() });
    const game = await knownGame(ctx, gameId);
    expect(game).toMatchObject({ name: "Galaxy II", languages: ["en"], environmentToken: second });
    expect(continueLink("https://help.example/support/", game, { email: "p@example.com", language: "en" })).toContain(`token=${second}`);
  });
});
