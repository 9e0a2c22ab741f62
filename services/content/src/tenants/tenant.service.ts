// Applying a tenant file (the admin tool's `pnpm admin apply`): a new company and everything of
// the file, through the same use cases the service runs (so every change writes its outbox
// event), in one transaction: a file that fails anywhere changes nothing. The file's digest is
// recorded with the ids it created; the same digest again creates nothing and returns them
// (without the API key secrets, which exist only at creation), and sets the company's mail
// sender, which the digest leaves out so that it can be edited. The file's blockedPlayers
// belong to the players service: they are checked here (their game refs) but not applied.
import type { Kysely } from "kysely";
import { isAppError, validationError, type ValidationIssue } from "@support/errors";
import { parseTenantFile, TenantFileError, type LocalizedText, type TenantFile } from "@support/tenant-file";
import type { ContentDatabase } from "../database.ts";
import { putEnvironmentAnnouncement } from "../announcements/announcement.service.ts";
import { createApiKey } from "../api-keys/api-key.service.ts";
import { OPERATOR, writeAudit } from "../audit/audit-log.ts";
import { createCollector } from "../collectors/collector.service.ts";
import { configureSingleSignOn } from "../agents/single-sign-on.service.ts";
import { createCompany, setCompanyEmailSender } from "../companies/company.service.ts";
import { createField } from "../fields/field.service.ts";
import { createEnvironment, createGame, createResource } from "../games/game.service.ts";
import { createTag } from "../tags/tag.service.ts";
import { createUser } from "../users/user.service.ts";
import { findTenantApplication, insertTenantApplication, lockDigest } from "./tenant-application.repository.ts";
import { isTenantDigest, recordOf, type AppliedTenant } from "./tenant.ts";

/** An invalid file: invalid_argument with one issue per bad value, paths into the file ("/games/0/slug"). */
function invalidFile(error: TenantFileError): Error {
  return validationError(
    error.issues.map((issue) => ({ path: issue.path === "" ? "" : `/${issue.path}`, message: issue.message })),
    error.message,
  );
}

/**
 * Runs one use case for the entry at `path` of the file; a validation error of the use case
 * (paths relative to the entry) becomes a TenantFileError with paths into the file.
 */
async function at<T>(path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isAppError(error) && error.code === "invalid_argument") {
      const issues: ValidationIssue[] = error.details?.issues ?? [{ path: "", message: error.message }];
      throw new TenantFileError(issues.map((issue) => ({ path: `${path}${issue.path}`, message: issue.message })), error.message);
    }
    throw error;
  }
}

/** A plain string is shorthand for a map with only the primary language. */
function localized(text: LocalizedText | null | undefined, primaryLanguage: string): Record<string, string | null> | null {
  if (text === null || text === undefined) return null;
  return typeof text === "string" ? { [primaryLanguage]: text } : text;
}

/** Checks the file (shape and cross-references) and applies it, or returns what its digest created before. */
export async function applyTenant(db: Kysely<ContentDatabase>, digest: string, input: unknown): Promise<AppliedTenant> {
  if (!isTenantDigest(digest)) throw validationError([{ path: "/digest", message: "must be the lower-case hex SHA-256 of the file" }]);
  let file: TenantFile;
  try {
    file = parseTenantFile(input);
  } catch (error) {
    if (error instanceof TenantFileError) throw invalidFile(error);
    throw error;
  }
  try {
    return await db.transaction().execute(async (trx) => {
      await lockDigest(trx, digest);
      const recorded = await findTenantApplication(trx, digest);
      if (recorded) {
        // The admin tool leaves company.email out of the digest: an edited sender is applied to
        // the company the file created (and the same one again writes nothing).
        await at("company", () => setCompanyEmailSender(trx, recorded.companyId, file.company.email));
        return { ...recorded, alreadyApplied: true };
      }
      const applied = await createTenant(trx, file);
      await insertTenantApplication(trx, digest, recordOf(applied));
      return applied;
    });
  } catch (error) {
    if (error instanceof TenantFileError) throw invalidFile(error);
    throw error;
  }
}

async function createTenant(trx: Kysely<ContentDatabase>, file: TenantFile): Promise<AppliedTenant> {
  const { singleSignOn, ...companyInput } = file.company;
  const company = await at("company", () => createCompany(trx, companyInput));
  const companyId = company.id;
  if (singleSignOn) await at("company", () => configureSingleSignOn(trx, companyId, singleSignOn));
  const result: AppliedTenant = { companyId, apiKeys: [], games: [], users: [], alreadyApplied: false };

  for (const [i, key] of (file.apiKeys ?? []).entries()) {
    const created = await at(`apiKeys/${i}`, () => createApiKey(trx, companyId, key, { actor: OPERATOR, audit: false }));
    result.apiKeys.push({ name: key.name, apiKeyId: created.apiKey.id, secret: created.secret });
  }

  const gameIds = new Map<string, string>();
  for (const [g, input] of (file.games ?? []).entries()) {
    const game = await at(`games/${g}`, () => createGame(trx, companyId, input));
    gameIds.set(input.ref, game.id);
    const environments: AppliedTenant["games"][number]["environments"] = [];
    for (const [e, environmentInput] of (input.environments ?? []).entries()) {
      const environment = await at(`games/${g}/environments/${e}`, () => createEnvironment(trx, companyId, game.id, environmentInput));
      environments.push({ ref: environmentInput.ref, environmentId: environment.id, token: environment.token });
      const announcement = environmentInput.announcement;
      if (announcement) {
        await at(`games/${g}/environments/${e}/announcement`, () =>
          putEnvironmentAnnouncement(trx, companyId, environment.id, {
            shortContent: localized(announcement.shortContent, company.primaryLanguage),
            longContent: localized(announcement.longContent, company.primaryLanguage),
          }),
        );
      }
    }
    for (const [r, resource] of (input.resources ?? []).entries()) {
      await at(`games/${g}/resources/${r}`, () => createResource(trx, companyId, game.id, resource));
    }
    const collectors: { ref: string; collectorId: string }[] = [];
    for (const [c, collector] of (input.collectors ?? []).entries()) {
      const created = await at(`games/${g}/collectors/${c}`, () => createCollector(trx, companyId, game.id, collector));
      collectors.push({ ref: collector.ref, collectorId: created.id });
    }
    result.games.push({ ref: input.ref, gameId: game.id, environments, collectors });
  }

  // parseTenantFile has checked that every ref names a game of the file.
  const gameIdOf = (ref: string | null) => (ref === null ? null : gameIds.get(ref)!);

  // Tags before users: a user's skills must name skill tags of the company, which the file may define.
  for (const [t, tag] of (file.tags ?? []).entries()) {
    await at(`tags/${t}`, () => createTag(trx, companyId, { ...tag, gameId: gameIdOf(tag.game) }));
  }

  for (const [u, user] of (file.users ?? []).entries()) {
    const created = await at(`users/${u}`, () =>
      createUser(trx, companyId, { name: user.name, email: user.email, role: user.role, displayName: user.displayName, gameIds: (user.games ?? []).map((ref) => gameIdOf(ref)!), skills: user.skills }),
    );
    result.users.push({ ref: user.ref, userId: created.id });
  }

  for (const [f, field] of (file.fields ?? []).entries()) {
    await at(`fields/${f}`, () => createField(trx, companyId, { ...field, gameId: gameIdOf(field.game) }));
  }

  // One entry for the whole file: what it created, by name (the ids are in the tool's answer).
  await writeAudit(trx, {
    action: "tenant.applied", companyId, userId: null, actor: OPERATOR, target: { type: "company", id: companyId }, before: null,
    after: {
      company: company.name,
      apiKeys: (file.apiKeys ?? []).map((key) => key.name),
      games: (file.games ?? []).map((game) => game.name),
      users: (file.users ?? []).map((user) => user.email),
      tags: (file.tags ?? []).map((tag) => tag.name),
      fields: (file.fields ?? []).map((field) => field.name),
    },
  });
  return result;
}
