// Users' skills (names of the company's tags marked isSkill) set by a tenant file, against real
// Postgres: stored in the order given, returned with the user and the session, and refused with
// the path of each bad name, leaving nothing of the file behind.
import { randomUUID } from "node:crypto";
import { AgentAccessService } from "@support/proto";
import { createServiceClient } from "@support/rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUserPassword } from "../src/agents/agent-access.service.ts";
import { deleteGame } from "../src/games/game.service.ts";
import { createTag } from "../src/tags/tag.service.ts";
import { applyTenant } from "../src/tenants/tenant.service.ts";
import { findUser } from "../src/users/user.repository.ts";
import { createUser } from "../src/users/user.service.ts";
import { failureOf, startContent, type ContentTestContext } from "./context.ts";
import { seedCompany, seedGame } from "./fixtures.ts";

const PASSWORD = "correct horse battery staple";
let ctx: ContentTestContext;

beforeAll(async () => {
  ctx = await startContent();
});
afterAll(() => ctx?.stop());

let digestCounter = 0;
const digest = () => (digestCounter += 1).toString(16).padStart(64, "b");
const emailOf = (name: string) => `${name}-${randomUUID().slice(0, 8)}@studio.example`;

/** A file whose users come before its tags, as the admin tool's README shows them. */
function fileWith(companyName: string, users: { ref: string; name: string; email: string; games?: string[]; skills?: string[] }[]) {
  return {
    company: { name: companyName },
    games: [{ ref: "galaxy", name: "Galaxy", slug: "galaxy", languages: ["en"] }],
    users,
    tags: [
      { name: "bug", game: null },
      { name: "billing", game: null, isSkill: true },
      { name: "crash", game: "galaxy", isSkill: true },
    ],
  };
}

describe("a tenant file with users' skills", () => {
  it("stores each user's skills in the order given, naming skill tags the file defines after its users", async () => {
    const ada = emailOf("ada");
    const applied = await applyTenant(
      ctx.db,
      digest(),
      fileWith("Skilled Studio", [
        { ref: "ada", name: "Ada Agent", email: ada, games: ["galaxy"], skills: ["crash", "billing"] },
        { ref: "bo", name: "Bo Agent", email: emailOf("bo") },
      ]),
    );
    const [adaUser, boUser] = await Promise.all(applied.users.map((user) => findUser(ctx.db, user.userId)));
    expect(adaUser?.skills).toEqual(["crash", "billing"]);
    expect(boUser?.skills).toEqual([]);

    // The session's user, as the gateway reads it.
    await setUserPassword({ db: ctx.db }, ada, PASSWORD);
    const client = createServiceClient(AgentAccessService, ctx.baseUrl);
    const signedIn = await client.signIn({ email: ada, password: PASSWORD, clientAddress: "10.3.3.3", userAgent: "vitest" });
    expect(signedIn.session?.user).toMatchObject({ id: adaUser!.id, skills: ["crash", "billing"] });
  });

  it("refuses an unknown tag and a tag without isSkill with their paths, and creates nothing", async () => {
    const name = `Unskilled Studio ${randomUUID()}`;
    const failure = await failureOf(
      applyTenant(
        ctx.db,
        digest(),
        fileWith(name, [
          { ref: "ada", name: "Ada Agent", email: emailOf("ada"), skills: ["billing"] },
          { ref: "bo", name: "Bo Agent", email: emailOf("bo"), skills: ["crash", "refunds", "bug"] },
        ]),
      ),
    );
    expect(failure).toEqual({
      code: "invalid_argument",
      message: expect.any(String),
      issues: [
        { path: "/users/1/skills/1", message: 'must be a skill tag of the company; no tag is named "refunds"' },
        { path: "/users/1/skills/2", message: 'must be a skill tag of the company; the tag "bug" is not marked isSkill' },
      ],
    });
    // One transaction: not the company, nor the user before the bad one, nor the tags.
    expect(await ctx.db.selectFrom("companies").select("id").where("name", "=", name).execute()).toEqual([]);
  });

  it("refuses a skill named twice and a name that cannot be a tag, with their paths", async () => {
    const twice = await failureOf(applyTenant(ctx.db, digest(), fileWith("Twice Studio", [{ ref: "ada", name: "Ada", email: emailOf("ada"), skills: ["billing", "billing"] }])));
    expect(twice).toMatchObject({ code: "invalid_argument", issues: [{ path: "/users/0/skills/1", message: "duplicates the skill at users/0/skills/0" }] });
    const comma = await failureOf(applyTenant(ctx.db, digest(), fileWith("Comma Studio", [{ ref: "ada", name: "Ada", email: emailOf("ada"), skills: ["billing,crash"] }])));
    expect(comma).toMatchObject({ code: "invalid_argument", issues: [{ path: "/users/0/skills/0", message: "must not contain a comma" }] });
  });
});

describe("creating a user with skills", () => {
  it("counts only live tags of the user's own company", async () => {
    const company = await seedCompany(ctx.db);
    const other = await seedCompany(ctx.db);
    await createTag(ctx.db, other.id, { gameId: null, name: "billing", isSkill: true });
    const { game } = await seedGame(ctx.db, company.id);
    await createTag(ctx.db, company.id, { gameId: game.id, name: "crash", isSkill: true });
    await deleteGame(ctx.db, game.id);
    await expect(createUser(ctx.db, company.id, { name: "Ada", email: emailOf("ada"), gameIds: [], skills: ["billing", "crash"] })).rejects.toMatchObject({
      code: "invalid_argument",
      details: {
        issues: [
          { path: "/skills/0", message: 'must be a skill tag of the company; no tag is named "billing"' },
          { path: "/skills/1", message: 'must be a skill tag of the company; no tag is named "crash"' },
        ],
      },
    });
    await createTag(ctx.db, company.id, { gameId: null, name: "billing", isSkill: true });
    expect((await createUser(ctx.db, company.id, { name: "Ada", email: emailOf("ada"), gameIds: [], skills: ["billing"] })).skills).toEqual(["billing"]);
  });
});
