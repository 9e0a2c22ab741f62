// Seeding through the service's use cases, as operators do with the admin command.
import { OPERATOR } from "../src/audit/audit-log.ts";
import type { Kysely } from "@support/db";
import type { ContentDatabase } from "../src/index.ts";
import { createApiKey } from "../src/api-keys/api-key.service.ts";
import type { NewCompanyInput } from "../src/companies/company.ts";
import { createCompany } from "../src/companies/company.service.ts";
import { createEnvironment, createGame, createResource } from "../src/games/game.service.ts";

let counter = 0;

export async function seedCompany(db: Kysely<ContentDatabase>, input: Partial<NewCompanyInput> = {}) {
  counter += 1;
  return createCompany(db, { name: `Company ${counter}`, ...input });
}

export async function seedApiKey(db: Kysely<ContentDatabase>, companyId: string, name = "main") {
  return createApiKey(db, companyId, { name }, { actor: OPERATOR });
}

/** A game with the given environments (default one, "production") and resources. */
export async function seedGame(
  db: Kysely<ContentDatabase>,
  companyId: string,
  options: { slug?: string; environments?: string[]; resources?: { key: string; title: string }[] } = {},
) {
  counter += 1;
  const slug = options.slug ?? `game-${counter}`;
  const game = await createGame(db, companyId, { name: `Game ${slug}`, slug, languages: ["en", "fr"] });
  const environments = [];
  for (const name of options.environments ?? ["production"]) environments.push(await createEnvironment(db, companyId, game.id, { name }));
  for (const resource of options.resources ?? []) await createResource(db, companyId, game.id, resource);
  return { game, environments, environment: environments[0]! };
}
