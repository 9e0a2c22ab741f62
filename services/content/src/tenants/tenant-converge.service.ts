// Converging a company on an edited tenant file (`pnpm admin apply --company <id> FILE`): every
// object the file names is matched to the company's by its identity (game slug, environment name
// within the game, resource key and collector ref within the game, API key name, user email, tag
// name and field key within their game or company-wide), created when missing and changed when
// an attribute the file gives differs, through the use cases the settings run (so each change
// has its event and its audit entry, actor operator). An attribute the file leaves out keeps the
// company's value. What the company has that the file does not name is reported, never deleted.
// A difference no use case may make (a field's type, the company's name) is a conflict: the
// caller rolls everything back. Runs inside the caller's transaction.
import type { Kysely } from "kysely";
import { failedPrecondition, notFound } from "@support/errors";
import type { TenantFile } from "@support/tenant-file";
import type { ContentDatabase } from "../database.ts";
import type { LanguageCode } from "../common/language.ts";
import { parseAnnouncementContent } from "../announcements/announcement.ts";
import { putEnvironmentAnnouncement } from "../announcements/announcement.service.ts";
import { listAllScopesAnnouncements } from "../announcements/announcement.repository.ts";
import { createApiKey, listApiKeys } from "../api-keys/api-key.service.ts";
import { OPERATOR, OPERATOR_ORIGIN, writeAudit, type ChangeOrigin } from "../audit/audit-log.ts";
import { parseCollectorChange, sameDefinition } from "../collectors/collector.ts";
import { changeCollector, createCollector, listCompanyCollectors, setContactForm } from "../collectors/collector.service.ts";
import { findCompany } from "../companies/company.repository.ts";
import { setCompanyEmailSender } from "../companies/company.service.ts";
import { changeField, createField, listFields } from "../fields/field.service.ts";
import { changeArticle } from "../games/article.service.ts";
import { getGameBranding, setGameBranding } from "../games/branding.service.ts";
import { parseResourceChange, type Game, type GameEnvironment } from "../games/game.ts";
import { setGameRoutingIn } from "../routing/routing.service.ts";
import { createEnvironment, createGame, createResource, listGamesWithEnvironments, setGameMetadataKeys, updateGame } from "../games/game.service.ts";
import { listResources } from "../games/game.repository.ts";
import { changeTag, createTag, listTags } from "../tags/tag.service.ts";
import { createUser, updateUser } from "../users/user.service.ts";
import { listUsers } from "../users/user.repository.ts";
import { findTenantApplication, insertTenantApplication, isTenantFileCompany } from "./tenant-application.repository.ts";
import { at, localized } from "./tenant-paths.ts";
import { auditedReport, changesSomething, differingAttributes, emptyReport, item, sameJson, sameSet, scopedName, type TenantReport } from "./tenant-report.ts";
import { recordOf, type AppliedTenant } from "./tenant.ts";

type Db = Kysely<ContentDatabase>;

// The file's own creations are named by the one tenant.applied entry; its changes are also
// recorded one by one (before and after), like an admin's.
const CHANGE: ChangeOrigin = { actor: OPERATOR };

/** Company settings a file sets only when it creates the company. */
const COMPANY_AT_CREATION = ["primaryLanguage", "allowImmediateDeletion", "autoCloseWaitingAfterHours", "apiRateLimitPerMinute", "requireTwoFactor"] as const;

/** Converges the company on the file; `report.conflicts` not empty means the caller must roll back. */
export async function convergeTenant(trx: Db, companyId: string, digest: string, file: TenantFile): Promise<AppliedTenant & { report: TenantReport }> {
  const company = await findCompany(trx, companyId);
  if (!company) throw notFound("company not found");
  if (!(await isTenantFileCompany(trx, companyId))) {
    throw failedPrecondition(`company ${companyId} was not created by a tenant file: a file converges only a company a file created`, { type: "TENANT_COMPANY_NOT_FROM_FILE" });
  }
  const recorded = await findTenantApplication(trx, digest);
  if (recorded && recorded.companyId !== companyId) {
    throw failedPrecondition(`this file created company ${recorded.companyId}: it is not applied to company ${companyId}`, { type: "TENANT_FILE_OF_OTHER_COMPANY" });
  }

  const report = emptyReport();
  const result: AppliedTenant & { report: TenantReport } = { companyId, apiKeys: [], games: [], users: [], alreadyApplied: false, report };

  // The company: its name must be the file's (a guard against the wrong --company); the settings
  // fixed at creation cannot change; the mail sender can (absent: back to the defaults, as always).
  const companyConflicts: string[] = [];
  if (file.company.name !== company.name) {
    report.conflicts.push(item("company", company.name, "company/name", companyId, {
      attributes: ["name"],
      message: `the file names company ${JSON.stringify(file.company.name)}, company ${companyId} is ${JSON.stringify(company.name)}: is it the right company?`,
    }));
    companyConflicts.push("name");
  }
  const fixed = differingAttributes(Object.fromEntries(COMPANY_AT_CREATION.map((key) => [key, file.company[key]])), company as unknown as Record<string, unknown>);
  if (fixed.length > 0) {
    report.conflicts.push(item("company", company.name, "company", companyId, { attributes: fixed, message: "a tenant file sets these only when it creates the company" }));
  }
  const senderChanged = await at("company", () => setCompanyEmailSender(trx, companyId, file.company.email));
  if (senderChanged) report.changed.push(item("company", company.name, "company", companyId, { attributes: ["email"] }));
  else if (companyConflicts.length === 0 && fixed.length === 0) report.unchanged.push(item("company", company.name, "company", companyId));

  await convergeApiKeys(trx, companyId, file, result);
  const { gameIds, slugs } = await convergeGames(trx, companyId, company.primaryLanguage, file, result);
  // parseTenantFile has checked that every ref names a game of the file.
  const gameIdOf = (ref: string | null) => (ref === null ? null : gameIds.get(ref)!);
  // Tags before users: a user's skills must name skill tags, which the file may define.
  // What the file does not name is reported with its game's slug, as the file would write it.
  const scoped = (name: string, gameId: string | null) => (gameId === null ? name : `${name} (${slugs.get(gameId) ?? gameId})`);
  await convergeTags(trx, companyId, file, gameIdOf, scoped, report);
  await convergeUsers(trx, companyId, file, gameIdOf, result);
  await convergeFields(trx, companyId, file, gameIdOf, scoped, report);

  if (report.conflicts.length === 0) {
    if (changesSomething(report)) {
      await writeAudit(trx, {
        action: "tenant.applied", companyId, userId: null, actor: OPERATOR, target: { type: "company", id: companyId }, before: null,
        after: { company: company.name, ...auditedReport(report) }, detail: { converged: true },
      });
    }
    // The file's digest now names this company: applied again without --company it creates nothing.
    if (!recorded) await insertTenantApplication(trx, digest, recordOf(result));
  }
  return result;
}

async function convergeApiKeys(trx: Db, companyId: string, file: TenantFile, result: AppliedTenant & { report: TenantReport }) {
  const { report } = result;
  const live = (await listApiKeys(trx, companyId)).filter((key) => key.revokedAt === null);
  const matched = new Set<string>();
  for (const [i, key] of (file.apiKeys ?? []).entries()) {
    const path = `apiKeys/${i}`;
    const found = live.find((candidate) => candidate.name === key.name && !matched.has(candidate.id));
    if (!found) {
      const created = await at(path, () => createApiKey(trx, companyId, key, { actor: OPERATOR, audit: false }));
      result.apiKeys.push({ name: key.name, apiKeyId: created.apiKey.id, secret: created.secret });
      report.created.push(item("apiKey", key.name, path, created.apiKey.id));
      continue;
    }
    matched.add(found.id);
    result.apiKeys.push({ name: key.name, apiKeyId: found.id });
    if (key.rateLimitPerMinute !== undefined && key.rateLimitPerMinute !== found.rateLimitPerMinute) {
      report.conflicts.push(item("apiKey", key.name, path, found.id, {
        attributes: ["rateLimitPerMinute"],
        message: "a key's rate limit is set when it is created: give the file's key another name (a new key) and revoke this one in the settings",
      }));
    } else {
      report.unchanged.push(item("apiKey", key.name, path, found.id));
    }
  }
  for (const key of live) if (!matched.has(key.id)) report.notInFile.push(item("apiKey", key.name, "", key.id));
}

/** Games and what belongs to each (environments, announcements, resources, collectors); returns the file's refs' game ids. */
async function convergeGames(trx: Db, companyId: string, primaryLanguage: LanguageCode, file: TenantFile, result: AppliedTenant & { report: TenantReport }) {
  const { report } = result;
  const live = await listGamesWithEnvironments(trx, companyId);
  const collectors = await listCompanyCollectors(trx, companyId);
  const overrides = (await listAllScopesAnnouncements(trx, companyId)).filter((announcement) => announcement.scope === "environment");
  const gameIds = new Map<string, string>();
  const slugs = new Map(live.map(({ game }) => [game.id, game.slug]));
  const matchedGames = new Set<string>();

  for (const [g, input] of (file.games ?? []).entries()) {
    const path = `games/${g}`;
    const existing = live.find((candidate) => candidate.game.slug === input.slug);
    let game: Game;
    let environments: GameEnvironment[] = [];
    if (!existing) {
      game = await at(path, () => createGame(trx, companyId, input));
      report.created.push(item("game", game.slug, path, game.id));
      const created = game.id;
      if (input.routing) await at(`${path}/routing`, () => setGameRoutingIn(trx, companyId, created, true));
      const branding = input.branding;
      const gameId = game.id;
      if (branding) await at(`${path}/branding`, () => setGameBranding(trx, companyId, gameId, branding, CHANGE));
    } else {
      const current = existing.game;
      game = current;
      environments = existing.environments;
      matchedGames.add(current.id);
      const changed = differingAttributes({ name: input.name, languages: input.languages, blockUnverifiedPlayers: input.blockUnverifiedPlayers }, current as unknown as Record<string, unknown>);
      if (changed.length > 0) {
        game = await at(path, () => updateGame(trx, companyId, current.id, { name: input.name, languages: input.languages, blockUnverifiedPlayers: input.blockUnverifiedPlayers }, CHANGE));
      }
      if (input.metadataJwks !== undefined && !sameJson(input.metadataJwks, current.metadataJwks)) {
        const jwks = input.metadataJwks;
        game = await at(`${path}/metadataJwks`, () => setGameMetadataKeys(trx, companyId, current.id, JSON.stringify(jwks), CHANGE));
        changed.push("metadataJwks");
      }
      // The branding's attributes the file names; one it leaves out keeps its value (the logo
      // is never in a file: it is uploaded in the console).
      // setGameBranding normalizes the values and records nothing when they are the ones set.
      const branding = input.branding;
      if (branding !== undefined) {
        const gameId = game.id;
        const before = await getGameBranding(trx, companyId, gameId);
        const wanted = { accentColor: "accentColor" in branding ? branding.accentColor : before.accentColor, colorScheme: branding.colorScheme ?? before.colorScheme };
        const after = await at(`${path}/branding`, () => setGameBranding(trx, companyId, gameId, wanted, CHANGE));
        if (after.accentColor !== before.accentColor || after.colorScheme !== before.colorScheme) changed.push("branding");
      }
      const routing = input.routing;
      if (routing !== undefined && routing !== current.routingEnabled) {
        await at(`${path}/routing`, () => setGameRoutingIn(trx, companyId, current.id, routing));
        changed.push("routing");
      }
      report[changed.length > 0 ? "changed" : "unchanged"].push(item("game", game.slug, path, game.id, { attributes: changed }));
    }
    const gameId = game.id;
    const slug = game.slug;
    gameIds.set(input.ref, gameId);
    slugs.set(gameId, slug);

    const applied: AppliedTenant["games"][number] = { ref: input.ref, gameId, environments: [], collectors: [] };
    const matchedEnvironments = new Set<string>();
    for (const [e, environmentInput] of (input.environments ?? []).entries()) {
      const environmentPath = `${path}/environments/${e}`;
      const name = `${slug}/${environmentInput.name}`;
      const found = environments.find((candidate) => candidate.name === environmentInput.name);
      if (found) {
        matchedEnvironments.add(found.id);
        report.unchanged.push(item("environment", name, environmentPath, found.id));
      }
      const environment = found ?? (await at(environmentPath, () => createEnvironment(trx, companyId, gameId, environmentInput)));
      if (!found) report.created.push(item("environment", name, environmentPath, environment.id));
      applied.environments.push({ ref: environmentInput.ref, environmentId: environment.id, token: environment.token });
      const announcement = environmentInput.announcement;
      if (announcement) {
        const wanted = { shortContent: localized(announcement.shortContent, primaryLanguage), longContent: localized(announcement.longContent, primaryLanguage) };
        const content = await at(`${environmentPath}/announcement`, () => parseAnnouncementContent(wanted, primaryLanguage));
        const current = overrides.find((override) => override.environmentId === environment.id);
        const changed = current ? differingAttributes({ ...content }, { shortContent: current.shortContent, longContent: current.longContent }) : [];
        const environmentId = environment.id;
        if (!current || changed.length > 0) await at(`${environmentPath}/announcement`, () => putEnvironmentAnnouncement(trx, companyId, environmentId, wanted));
        const list = !current ? report.created : changed.length > 0 ? report.changed : report.unchanged;
        list.push(item("announcement", name, `${environmentPath}/announcement`, environment.id, { attributes: changed }));
      }
    }
    for (const environment of environments) {
      if (!matchedEnvironments.has(environment.id)) report.notInFile.push(item("environment", `${slug}/${environment.name}`, "", environment.id));
    }
    for (const override of overrides) {
      const environment = environments.find((candidate) => candidate.id === override.environmentId);
      const named = (input.environments ?? []).some((candidate) => candidate.name === environment?.name && candidate.announcement);
      if (environment && !named) report.notInFile.push(item("announcement", `${slug}/${environment.name}`, "", environment.id));
    }

    const resources = existing ? await listResources(trx, companyId, gameId) : [];
    const matchedResources = new Set<string>();
    for (const [r, resource] of (input.resources ?? []).entries()) {
      const resourcePath = `${path}/resources/${r}`;
      const found = resources.find((candidate) => candidate.key === resource.key);
      if (!found) {
        const created = await at(resourcePath, () => createResource(trx, companyId, gameId, resource));
        report.created.push(item("resource", `${slug}/${created.key}`, resourcePath, created.id));
        continue;
      }
      matchedResources.add(found.id);
      // The section and the order are the settings' (the file has neither); a body left out stays.
      const article = { title: resource.title, body: resource.body === undefined ? found.body : resource.body, section: found.section };
      const change = await at(resourcePath, () => parseResourceChange(article, primaryLanguage));
      // Compared as JSON with sorted keys: stored maps come back in jsonb's key order, not the file's.
      const changed = [
        ...(found.title !== change.title || !sameJson(found.titleLocalized, change.titleLocalized) ? ["title"] : []),
        ...(!sameJson(found.body, change.body) ? ["body"] : []),
      ];
      if (changed.length === 0) {
        report.unchanged.push(item("resource", `${slug}/${found.key}`, resourcePath, found.id));
      } else {
        await at(resourcePath, () => changeArticle(trx, companyId, found.id, article, CHANGE));
        report.changed.push(item("resource", `${slug}/${found.key}`, resourcePath, found.id, { attributes: changed }));
      }
    }
    for (const resource of resources) {
      if (!matchedResources.has(resource.id)) report.notInFile.push(item("resource", `${slug}/${resource.key}`, "", resource.id));
    }

    const gameCollectors = collectors.filter((collector) => collector.gameId === gameId);
    const matchedCollectors = new Set<string>();
    for (const [c, collectorInput] of (input.collectors ?? []).entries()) {
      const collectorPath = `${path}/collectors/${c}`;
      const name = `${slug}/${collectorInput.ref}`;
      const found = gameCollectors.find((candidate) => candidate.ref === collectorInput.ref);
      if (!found) {
        // Made without the contact form first: the game's current one (maybe an admin's) moves
        // to it below, instead of colliding with it.
        const created = await at(collectorPath, () => createCollector(trx, companyId, gameId, { ...collectorInput, contactForm: false }));
        if (collectorInput.contactForm === true) await setContactForm(trx, companyId, gameId, created.id, CHANGE);
        applied.collectors!.push({ ref: collectorInput.ref, collectorId: created.id });
        report.created.push(item("collector", name, collectorPath, created.id));
        continue;
      }
      matchedCollectors.add(found.id);
      applied.collectors!.push({ ref: collectorInput.ref, collectorId: found.id });
      const change = await at(collectorPath, () => parseCollectorChange({ title: collectorInput.title, fields: collectorInput.fields }));
      const changed: string[] = [];
      if (!sameDefinition(found, change)) {
        if (found.title !== change.title) changed.push("title");
        if (!sameDefinition({ title: found.title, fields: found.fields }, { title: found.title, fields: change.fields })) changed.push("fields");
        await at(collectorPath, () => changeCollector(trx, companyId, found.id, { title: collectorInput.title, fields: collectorInput.fields }, CHANGE));
      }
      if (collectorInput.contactForm !== undefined && collectorInput.contactForm !== found.contactForm) {
        await setContactForm(trx, companyId, gameId, collectorInput.contactForm ? found.id : null, CHANGE);
        changed.push("contactForm");
      }
      report[changed.length > 0 ? "changed" : "unchanged"].push(item("collector", name, collectorPath, found.id, { attributes: changed }));
    }
    for (const collector of gameCollectors) {
      if (!matchedCollectors.has(collector.id)) report.notInFile.push(item("collector", `${slug}/${collector.ref}`, "", collector.id));
    }
    result.games.push(applied);
  }
  for (const { game } of live) if (!matchedGames.has(game.id)) report.notInFile.push(item("game", game.slug, "", game.id));
  return { gameIds, slugs };
}

type Scoped = (name: string, gameId: string | null) => string;

async function convergeTags(trx: Db, companyId: string, file: TenantFile, gameIdOf: (ref: string | null) => string | null, scoped: Scoped, report: TenantReport) {
  const live = await listTags(trx, companyId);
  const matched = new Set<string>();
  for (const [t, tag] of (file.tags ?? []).entries()) {
    const path = `tags/${t}`;
    const gameId = gameIdOf(tag.game);
    const name = scopedName(tag.name.trim(), tag.game, file);
    const found = live.find((candidate) => candidate.gameId === gameId && candidate.name === tag.name.trim());
    if (!found) {
      const created = await at(path, () => createTag(trx, companyId, { ...tag, gameId }));
      report.created.push(item("tag", name, path, created.id));
      continue;
    }
    matched.add(found.id);
    const changed = differingAttributes({ description: tag.description, isAiTag: tag.isAiTag, isSkill: tag.isSkill }, found as unknown as Record<string, unknown>);
    if (changed.length > 0) {
      const change = { description: tag.description === undefined ? found.description : tag.description, isAiTag: tag.isAiTag ?? found.isAiTag, isSkill: tag.isSkill ?? found.isSkill };
      await at(path, () => changeTag(trx, companyId, found.id, change, CHANGE));
    }
    report[changed.length > 0 ? "changed" : "unchanged"].push(item("tag", name, path, found.id, { attributes: changed }));
  }
  for (const tag of live) if (!matched.has(tag.id)) report.notInFile.push(item("tag", scoped(tag.name, tag.gameId), "", tag.id));
}

async function convergeUsers(trx: Db, companyId: string, file: TenantFile, gameIdOf: (ref: string | null) => string | null, result: AppliedTenant & { report: TenantReport }) {
  const { report } = result;
  const existing = await listUsers(trx, companyId);
  const matched = new Set<string>();
  for (const [u, user] of (file.users ?? []).entries()) {
    const path = `users/${u}`;
    const gameIds = user.games?.map((ref) => gameIdOf(ref)!);
    const found = existing.find((candidate) => candidate.email.toLowerCase() === user.email.toLowerCase());
    if (!found) {
      const created = await at(path, () => createUser(trx, companyId, { name: user.name, email: user.email, role: user.role, displayName: user.displayName, gameIds: gameIds ?? [], skills: user.skills, languages: user.languages, capacity: user.capacity }));
      result.users.push({ ref: user.ref, userId: created.id });
      report.created.push(item("user", created.email, path, created.id));
      continue;
    }
    matched.add(found.id);
    result.users.push({ ref: user.ref, userId: found.id });
    // A user's name and display name are set when the user is made; the file cannot change them.
    const fixed = differingAttributes({ name: user.name, displayName: user.displayName }, { name: found.name, displayName: found.displayName ?? undefined });
    if (fixed.length > 0) {
      report.conflicts.push(item("user", found.email, path, found.id, { attributes: fixed, message: "a tenant file sets a user's name and display name only when it creates the user: write the user's current ones in the file" }));
      continue;
    }
    const changed = [
      ...(user.role !== undefined && user.role !== found.role ? ["role"] : []),
      ...(gameIds !== undefined && !sameSet(gameIds, found.gameIds) ? ["games"] : []),
      ...(user.skills !== undefined && !sameJson(user.skills.map((skill) => skill.trim()), found.skills) ? ["skills"] : []),
      ...(user.languages !== undefined && !sameJson(user.languages, found.languages) ? ["languages"] : []),
      ...(user.capacity !== undefined && user.capacity !== found.capacity ? ["capacity"] : []),
    ];
    if (changed.length > 0) {
      await at(path, () => updateUser(trx, companyId, found.id, { role: user.role, gameIds, skills: user.skills, languages: user.languages, capacity: user.capacity }, OPERATOR_ORIGIN));
    }
    report[changed.length > 0 ? "changed" : "unchanged"].push(item("user", found.email, path, found.id, { attributes: changed }));
  }
  for (const user of existing) if (!matched.has(user.id)) report.notInFile.push(item("user", user.email, "", user.id));
}

async function convergeFields(trx: Db, companyId: string, file: TenantFile, gameIdOf: (ref: string | null) => string | null, scoped: Scoped, report: TenantReport) {
  const live = await listFields(trx, companyId);
  const matched = new Set<string>();
  for (const [f, field] of (file.fields ?? []).entries()) {
    const path = `fields/${f}`;
    const gameId = gameIdOf(field.game);
    const name = scopedName(field.key, field.game, file);
    const found = live.find((candidate) => candidate.gameId === gameId && candidate.key === field.key);
    if (!found) {
      const created = await at(path, () => createField(trx, companyId, { ...field, gameId }));
      report.created.push(item("field", name, path, created.id));
      continue;
    }
    matched.add(found.id);
    if (field.type !== found.type) {
      report.conflicts.push(item("field", name, path, found.id, {
        attributes: ["type"],
        message: `a field's type cannot change (tickets hold ${found.type} values): give the file's field another key, or retire this one in the settings first`,
      }));
      continue;
    }
    const changed = differingAttributes({ name: field.name, description: field.description, isAiField: field.isAiField, options: field.options }, found as unknown as Record<string, unknown>);
    if (changed.length > 0) {
      const change = {
        name: field.name,
        description: field.description === undefined ? found.description : field.description,
        isAiField: field.isAiField ?? found.isAiField,
        options: field.options ?? found.options,
      };
      await at(path, () => changeField(trx, companyId, found.id, change, CHANGE));
    }
    report[changed.length > 0 ? "changed" : "unchanged"].push(item("field", name, path, found.id, { attributes: changed }));
  }
  for (const field of live) if (!matched.has(field.id)) report.notInFile.push(item("field", scoped(field.key, field.gameId), "", field.id));
}
