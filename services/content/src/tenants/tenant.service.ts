// Applying a tenant file (the admin tool's `pnpm admin apply`): a new company and everything of
// the file, through the same use cases the service runs (so every change writes its outbox
// event), in one transaction: a file that fails anywhere changes nothing. The file's digest is
// recorded with the ids it created; the same digest again creates nothing and returns them
// (without the API key secrets, which exist only at creation), and sets the company's mail
// sender, which the digest leaves out so that it can be edited. Named with a company, the file
// converges that company instead (tenant-converge.service.ts). A dry run does all of it and
// rolls the transaction back. The file's blockedPlayers belong to the players service: they are
// checked here (their game refs) but not applied.
import type { Kysely } from "kysely";
import { failedPrecondition, validationError } from "@support/errors";
import { parseTenantFile, TenantFileError, type TenantFile } from "@support/tenant-file";
import type { ContentDatabase } from "../database.ts";
import { putEnvironmentAnnouncement } from "../announcements/announcement.service.ts";
import { createApiKey } from "../api-keys/api-key.service.ts";
import { OPERATOR, writeAudit } from "../audit/audit-log.ts";
import { createCollector } from "../collectors/collector.service.ts";
import { configureSingleSignOn } from "../agents/single-sign-on.service.ts";
import { isUuid } from "../common/validation.ts";
import { createCompany, setCompanyEmailSender } from "../companies/company.service.ts";
import { createField } from "../fields/field.service.ts";
import { setGameBranding } from "../games/branding.service.ts";
import { setGameRoutingIn } from "../routing/routing.service.ts";
import { createEnvironment, createGame, createResource } from "../games/game.service.ts";
import { createTag } from "../tags/tag.service.ts";
import { createUser } from "../users/user.service.ts";
import { findTenantApplication, insertTenantApplication, listTenantFileCompaniesNamed, lockDigest, lockTenantCompany } from "./tenant-application.repository.ts";
import { convergeTenant } from "./tenant-converge.service.ts";
import { at, invalidFile, localized } from "./tenant-paths.ts";
import { emptyReport, item, scopedName, type TenantReport } from "./tenant-report.ts";
import { isTenantDigest, recordOf, type AppliedTenant } from "./tenant.ts";

export interface ApplyTenantOptions {
  /** The company to converge on the file (one a tenant file created); absent or "": the digest decides. */
  companyId?: string | undefined;
  /** Do everything, then roll it back: the report says what would happen, nothing is written. */
  dryRun?: boolean | undefined;
  /** Refuse to create a company when one a tenant file created has the file's company name. */
  uniqueCompanyName?: boolean | undefined;
}

/** Carries the result out of a transaction that must not commit (a dry run, or conflicts). */
class RollBack extends Error {
  readonly result: AppliedTenant;
  constructor(result: AppliedTenant) {
    super("rolled back");
    this.result = result;
  }
}

/** What a dry run answers: nothing it made exists, so no ids and no secrets, only the report. */
function dryRunResult(result: AppliedTenant, companyId: string): AppliedTenant {
  const report = result.report ?? emptyReport();
  return {
    companyId,
    apiKeys: [],
    games: [],
    users: [],
    alreadyApplied: result.alreadyApplied,
    report: { ...report, created: report.created.map((created) => ({ ...created, id: "" })) },
  };
}

/** Checks the file (shape and cross-references) and applies it, or returns what its digest created before. */
export async function applyTenant(db: Kysely<ContentDatabase>, digest: string, input: unknown, options: ApplyTenantOptions = {}): Promise<AppliedTenant> {
  if (!isTenantDigest(digest)) throw validationError([{ path: "/digest", message: "must be the lower-case hex SHA-256 of the file" }]);
  const target = options.companyId === undefined || options.companyId === "" ? undefined : options.companyId;
  if (target !== undefined && !isUuid(target)) throw validationError([{ path: "/companyId", message: "must be a UUID" }]);
  let file: TenantFile;
  try {
    file = parseTenantFile(input);
  } catch (error) {
    if (error instanceof TenantFileError) throw invalidFile(error);
    throw error;
  }
  try {
    return await db.transaction().execute(async (trx) => {
      if (target !== undefined) {
        await lockTenantCompany(trx, target.toLowerCase());
        await lockDigest(trx, digest);
        const converged = await convergeTenant(trx, target.toLowerCase(), digest, file);
        if (options.dryRun || converged.report!.conflicts.length > 0) throw new RollBack(converged);
        return converged;
      }
      await lockDigest(trx, digest);
      const recorded = await findTenantApplication(trx, digest);
      if (recorded) {
        // The admin tool leaves company.email out of the digest: an edited sender is applied to
        // the company the file created (and the same one again writes nothing).
        await at("company", () => setCompanyEmailSender(trx, recorded.companyId, file.company.email));
        const again = { ...recorded, alreadyApplied: true };
        if (options.dryRun) throw new RollBack(again);
        return again;
      }
      const applied = await createTenant(trx, file);
      if (options.uniqueCompanyName) {
        // Checked after creating, so that a file's own mistakes are reported first.
        const named = await listTenantFileCompaniesNamed(trx, file.company.name, applied.companyId);
        if (named.length > 0) {
          throw failedPrecondition(
            `a tenant file already created company ${named.join(", ")} named ${JSON.stringify(file.company.name)}: to change it, apply the file to that company ` +
              `(pnpm admin apply --company ${named[0]}); to create another company, give the file another company name`,
            { type: "TENANT_COMPANY_EXISTS", payload: { companyIds: named } },
          );
        }
      }
      if (options.dryRun) throw new RollBack(applied);
      await insertTenantApplication(trx, digest, recordOf(applied));
      return applied;
    });
  } catch (error) {
    if (error instanceof RollBack) {
      if (options.dryRun) return dryRunResult(error.result, target ?? (error.result.alreadyApplied ? error.result.companyId : ""));
      // Conflicts: nothing was written, nothing created exists, no secret is valid.
      return dryRunResult(error.result, error.result.companyId);
    }
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
  const report: TenantReport = emptyReport();
  report.created.push(item("company", company.name, "company", companyId));

  for (const [i, key] of (file.apiKeys ?? []).entries()) {
    const created = await at(`apiKeys/${i}`, () => createApiKey(trx, companyId, key, { actor: OPERATOR, audit: false }));
    result.apiKeys.push({ name: key.name, apiKeyId: created.apiKey.id, secret: created.secret });
    report.created.push(item("apiKey", key.name, `apiKeys/${i}`, created.apiKey.id));
  }

  const gameIds = new Map<string, string>();
  for (const [g, input] of (file.games ?? []).entries()) {
    const game = await at(`games/${g}`, () => createGame(trx, companyId, input));
    gameIds.set(input.ref, game.id);
    report.created.push(item("game", game.slug, `games/${g}`, game.id));
    if (input.routing) await at(`games/${g}/routing`, () => setGameRoutingIn(trx, companyId, game.id, true));
    const branding = input.branding;
    if (branding) {
      await at(`games/${g}/branding`, () => setGameBranding(trx, companyId, game.id, branding, { actor: OPERATOR }));
    }
    const environments: AppliedTenant["games"][number]["environments"] = [];
    for (const [e, environmentInput] of (input.environments ?? []).entries()) {
      const environment = await at(`games/${g}/environments/${e}`, () => createEnvironment(trx, companyId, game.id, environmentInput));
      environments.push({ ref: environmentInput.ref, environmentId: environment.id, token: environment.token });
      report.created.push(item("environment", `${game.slug}/${environment.name}`, `games/${g}/environments/${e}`, environment.id));
      const announcement = environmentInput.announcement;
      if (announcement) {
        await at(`games/${g}/environments/${e}/announcement`, () =>
          putEnvironmentAnnouncement(trx, companyId, environment.id, {
            shortContent: localized(announcement.shortContent, company.primaryLanguage),
            longContent: localized(announcement.longContent, company.primaryLanguage),
          }),
        );
        report.created.push(item("announcement", `${game.slug}/${environment.name}`, `games/${g}/environments/${e}/announcement`, environment.id));
      }
    }
    for (const [r, resource] of (input.resources ?? []).entries()) {
      const created = await at(`games/${g}/resources/${r}`, () => createResource(trx, companyId, game.id, resource));
      report.created.push(item("resource", `${game.slug}/${created.key}`, `games/${g}/resources/${r}`, created.id));
    }
    const collectors: { ref: string; collectorId: string }[] = [];
    for (const [c, collector] of (input.collectors ?? []).entries()) {
      const created = await at(`games/${g}/collectors/${c}`, () => createCollector(trx, companyId, game.id, collector));
      collectors.push({ ref: collector.ref, collectorId: created.id });
      report.created.push(item("collector", `${game.slug}/${collector.ref}`, `games/${g}/collectors/${c}`, created.id));
    }
    result.games.push({ ref: input.ref, gameId: game.id, environments, collectors });
  }

  // parseTenantFile has checked that every ref names a game of the file.
  const gameIdOf = (ref: string | null) => (ref === null ? null : gameIds.get(ref)!);

  // Tags before users: a user's skills must name skill tags of the company, which the file may define.
  for (const [t, tag] of (file.tags ?? []).entries()) {
    const created = await at(`tags/${t}`, () => createTag(trx, companyId, { ...tag, gameId: gameIdOf(tag.game) }));
    report.created.push(item("tag", scopedName(created.name, tag.game, file), `tags/${t}`, created.id));
  }

  for (const [u, user] of (file.users ?? []).entries()) {
    const created = await at(`users/${u}`, () =>
      createUser(trx, companyId, { name: user.name, email: user.email, role: user.role, displayName: user.displayName, gameIds: (user.games ?? []).map((ref) => gameIdOf(ref)!), skills: user.skills, languages: user.languages, capacity: user.capacity }),
    );
    result.users.push({ ref: user.ref, userId: created.id });
    report.created.push(item("user", created.email, `users/${u}`, created.id));
  }

  for (const [f, field] of (file.fields ?? []).entries()) {
    const created = await at(`fields/${f}`, () => createField(trx, companyId, { ...field, gameId: gameIdOf(field.game) }));
    report.created.push(item("field", scopedName(created.key, field.game, file), `fields/${f}`, created.id));
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
  result.report = report;
  return result;
}
