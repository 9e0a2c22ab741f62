// `pnpm admin apply`: creates a new company and everything in a tenant file through the same
// use cases the service runs (so every change writes its outbox event), in one transaction: a
// file that fails anywhere changes nothing. Its blockedPlayers go through the players service's
// admin function inside the same transaction (the caller has migrated the players schema).
import type { Kysely } from "kysely";
import { isAppError, type ValidationIssue } from "@support/errors";
import { blockPlayersWithExecutor } from "@support/players";
import type { ContentDatabase } from "../database.ts";
import { putEnvironmentAnnouncement } from "../announcements/announcement.service.ts";
import { createApiKey } from "../api-keys/api-key.service.ts";
import { createCompany } from "../companies/company.service.ts";
import { createField } from "../fields/field.service.ts";
import { createEnvironment, createGame, createResource } from "../games/game.service.ts";
import { createTag } from "../tags/tag.service.ts";
import { createUser } from "../users/user.service.ts";
import { TenantFileError, type LocalizedText, type TenantFile } from "./tenant-file.ts";

export interface TenantResult {
  companyId: string;
  /** API key name -> secret, shown only now. */
  apiKeys: Record<string, string>;
  games: Record<string, { id: string; environments: Record<string, { id: string; token: string }> }>;
  users: Record<string, string>;
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

export async function applyTenant(db: Kysely<ContentDatabase>, file: TenantFile): Promise<TenantResult> {
  return db.transaction().execute(async (trx) => {
    const company = await at("company", () => createCompany(trx, file.company));
    const companyId = company.id;
    const result: TenantResult = { companyId, apiKeys: {}, games: {}, users: {} };

    for (const [i, key] of (file.apiKeys ?? []).entries()) {
      const created = await at(`apiKeys/${i}`, () => createApiKey(trx, companyId, key));
      result.apiKeys[key.name] = created.secret;
    }

    const gameIds = new Map<string, string>();
    for (const [g, input] of (file.games ?? []).entries()) {
      const game = await at(`games/${g}`, () => createGame(trx, companyId, input));
      gameIds.set(input.ref, game.id);
      const environments: Record<string, { id: string; token: string }> = {};
      for (const [e, environmentInput] of (input.environments ?? []).entries()) {
        const environment = await at(`games/${g}/environments/${e}`, () => createEnvironment(trx, companyId, game.id, environmentInput));
        environments[environmentInput.ref] = { id: environment.id, token: environment.token };
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
      result.games[input.ref] = { id: game.id, environments };
    }

    // parseTenantFile has checked that every ref names a game of the file.
    const gameIdOf = (ref: string | null) => (ref === null ? null : gameIds.get(ref)!);

    for (const [b, entry] of (file.blockedPlayers ?? []).entries()) {
      await at(`blockedPlayers/${b}`, () =>
        blockPlayersWithExecutor(trx, companyId, [{ gameId: gameIdOf(entry.game)!, externalId: entry.playerId, email: entry.email }]),
      );
    }

    for (const [u, user] of (file.users ?? []).entries()) {
      const created = await at(`users/${u}`, () =>
        createUser(trx, companyId, { name: user.name, email: user.email, gameIds: (user.games ?? []).map((ref) => gameIdOf(ref)!) }),
      );
      result.users[user.ref] = created.id;
    }

    for (const [t, tag] of (file.tags ?? []).entries()) {
      await at(`tags/${t}`, () => createTag(trx, companyId, { ...tag, gameId: gameIdOf(tag.game) }));
    }

    for (const [f, field] of (file.fields ?? []).entries()) {
      await at(`fields/${f}`, () => createField(trx, companyId, { ...field, gameId: gameIdOf(field.game) }));
    }

    return result;
  });
}
