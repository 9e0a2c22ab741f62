// Announcement use cases (the public GET, PUT and DELETE /announcements, and the environment
// overrides operators set). Clearing a game announcement lets the shared one show again;
// clearing the shared one leaves game and environment announcements alone - both follow from
// resolving at read time.
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { notFound, validationError } from "@support/errors";
import type { ContentDatabase } from "../database.ts";
import { findCompany } from "../companies/company.repository.ts";
import { requireLiveEnvironment, requireLiveGame } from "../games/game.service.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid } from "../common/validation.ts";
import { writeAudit, type ChangeOrigin } from "../audit/audit-log.ts";
import {
  announcementEventData, parseAnnouncementContent, pickAnnouncementInForce,
  type Announcement, type AnnouncementContentInput, type AnnouncementSource,
} from "./announcement.ts";
import {
  deleteAnnouncementOf, findAnnouncementsFor, listAllScopesAnnouncements, listConfiguredAnnouncements, upsertAnnouncement, type AnnouncementTarget,
} from "./announcement.repository.ts";

type Db = Kysely<ContentDatabase>;

export interface PutAnnouncementInput extends AnnouncementContentInput {
  /** null or absent: the shared announcement. */
  gameId?: string | null | undefined;
}

function checkGameId(gameId: string | null | undefined): string | null {
  if (gameId === null || gameId === undefined) return null;
  if (!isUuid(gameId)) throw validationError([{ path: "/gameId", message: "must be a UUID" }], "gameId must be a UUID or null");
  return gameId.toLowerCase();
}

async function requireCompany(trx: Db, companyId: string) {
  const company = isUuid(companyId) ? await findCompany(trx, companyId) : undefined;
  if (!company) throw notFound("company not found");
  return company;
}

/** The stored announcement of exactly this scope, if any (the audit log's "before"). */
async function findOf(trx: Db, target: AnnouncementTarget): Promise<Announcement | undefined> {
  const all = await listAllScopesAnnouncements(trx, target.companyId);
  return all.find((a) => a.scope === target.scope && a.gameId === target.gameId && a.environmentId === target.environmentId);
}

const audited = (announcement: Announcement | undefined) =>
  announcement ? { scope: announcement.scope, gameId: announcement.gameId, environmentId: announcement.environmentId, shortContent: announcement.shortContent, longContent: announcement.longContent } : null;

const auditTarget = (target: AnnouncementTarget) =>
  target.scope === "shared" ? { type: "company", id: target.companyId } : target.scope === "game" ? { type: "game", id: target.gameId! } : { type: "environment", id: target.environmentId! };

async function store(trx: Db, target: AnnouncementTarget, input: AnnouncementContentInput, origin?: ChangeOrigin): Promise<Announcement> {
  const company = await requireCompany(trx, target.companyId);
  const content = parseAnnouncementContent(input, company.primaryLanguage);
  const before = origin ? await findOf(trx, target) : undefined;
  const announcement = await upsertAnnouncement(trx, target, content);
  await writeEvents(trx, [newEvent("content.announcement.updated", target.companyId, announcementEventData(target.scope, target.gameId, target.environmentId))]);
  if (origin) {
    await writeAudit(trx, {
      action: "announcement.set", companyId: target.companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress,
      target: auditTarget(target), before: audited(before), after: audited(announcement),
    });
  }
  return announcement;
}

async function clear(trx: Db, target: AnnouncementTarget, origin?: ChangeOrigin): Promise<void> {
  const before = origin ? await findOf(trx, target) : undefined;
  // Clearing what is not there succeeds and, changing nothing, emits nothing.
  if (!(await deleteAnnouncementOf(trx, target))) return;
  await writeEvents(trx, [newEvent("content.announcement.cleared", target.companyId, announcementEventData(target.scope, target.gameId, target.environmentId))]);
  if (origin) {
    await writeAudit(trx, {
      action: "announcement.cleared", companyId: target.companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress,
      target: auditTarget(target), before: audited(before), after: null,
    });
  }
}

/** Where an admin sets an announcement in the settings: no game (shared), a game, or an environment of it. */
export interface AnnouncementScopeInput {
  gameId?: string | null | undefined;
  environmentId?: string | null | undefined;
}

async function settingsTarget(trx: Db, companyId: string, input: AnnouncementScopeInput): Promise<AnnouncementTarget> {
  const gameId = checkGameId(input.gameId);
  const environmentId = input.environmentId === null || input.environmentId === undefined || input.environmentId === "" ? null : input.environmentId;
  if (environmentId !== null) {
    if (gameId === null) throw validationError([{ path: "/gameId", message: "must be the environment's game" }], "an environment announcement names its game");
    await requireLiveGame(trx, companyId, gameId);
    const environment = await requireLiveEnvironment(trx, companyId, environmentId);
    if (environment.gameId !== gameId) throw notFound("environment not found");
    return { companyId, scope: "environment", gameId, environmentId: environment.id };
  }
  if (gameId !== null) {
    await requireLiveGame(trx, companyId, gameId);
    return { companyId, scope: "game", gameId, environmentId: null };
  }
  await requireCompany(trx, companyId);
  return { companyId, scope: "shared", gameId: null, environmentId: null };
}

/** The company's announcements of every scope (the settings' list). */
export async function listSettingsAnnouncements(db: Db, companyId: string): Promise<Announcement[]> {
  return isUuid(companyId) ? listAllScopesAnnouncements(db, companyId) : [];
}

/** An admin sets the shared, a game's or an environment's announcement (audited). */
export async function setAnnouncementInSettings(db: Db, companyId: string, scope: AnnouncementScopeInput, input: AnnouncementContentInput, origin: ChangeOrigin): Promise<Announcement> {
  return inTransaction(db, async (trx) => store(trx, await settingsTarget(trx, companyId, scope), input, origin));
}

/** An admin clears the shared, a game's or an environment's announcement (audited; none there: nothing written). */
export async function clearAnnouncementInSettings(db: Db, companyId: string, scope: AnnouncementScopeInput, origin: ChangeOrigin): Promise<void> {
  await inTransaction(db, async (trx) => clear(trx, await settingsTarget(trx, companyId, scope), origin));
}

export async function listAnnouncements(db: Db, companyId: string): Promise<Announcement[]> {
  return isUuid(companyId) ? listConfiguredAnnouncements(db, companyId) : [];
}

export async function putAnnouncement(db: Db, companyId: string, input: PutAnnouncementInput): Promise<Announcement> {
  const gameId = checkGameId(input.gameId);
  return inTransaction(db, async (trx) => {
    if (gameId !== null) await requireLiveGame(trx, companyId, gameId);
    const target: AnnouncementTarget = { companyId, scope: gameId === null ? "shared" : "game", gameId, environmentId: null };
    return store(trx, target, input);
  });
}

export async function deleteAnnouncement(db: Db, companyId: string, input: { gameId?: string | null | undefined }): Promise<void> {
  const gameId = checkGameId(input.gameId);
  await inTransaction(db, async (trx) => {
    if (gameId !== null) await requireLiveGame(trx, companyId, gameId);
    else if (!isUuid(companyId)) return;
    await clear(trx, { companyId, scope: gameId === null ? "shared" : "game", gameId, environmentId: null });
  });
}

export async function putEnvironmentAnnouncement(
  db: Db,
  companyId: string,
  environmentId: string,
  input: AnnouncementContentInput,
): Promise<Announcement> {
  return inTransaction(db, async (trx) => {
    const environment = await requireLiveEnvironment(trx, companyId, environmentId);
    return store(trx, { companyId, scope: "environment", gameId: environment.gameId, environmentId: environment.id }, input);
  });
}

export async function deleteEnvironmentAnnouncement(db: Db, companyId: string, environmentId: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const environment = await requireLiveEnvironment(trx, companyId, environmentId);
    await clear(trx, { companyId, scope: "environment", gameId: environment.gameId, environmentId: environment.id });
  });
}

/** The announcement in force for an environment: override, else game, else shared (`source` says which). */
export async function resolveAnnouncement(
  db: Db,
  companyId: string,
  environmentId: string,
): Promise<{ announcement: Announcement | null; source: AnnouncementSource }> {
  const environment = await requireLiveEnvironment(db, companyId, environmentId);
  const candidates = await findAnnouncementsFor(db, companyId, environment.gameId, environment.id);
  return pickAnnouncementInForce(candidates, { gameId: environment.gameId, environmentId: environment.id });
}
