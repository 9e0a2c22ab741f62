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
import {
  announcementEventData, parseAnnouncementContent, pickAnnouncementInForce,
  type Announcement, type AnnouncementContentInput, type AnnouncementSource,
} from "./announcement.ts";
import {
  deleteAnnouncementOf, findAnnouncementsFor, listConfiguredAnnouncements, upsertAnnouncement, type AnnouncementTarget,
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

async function store(trx: Db, target: AnnouncementTarget, input: AnnouncementContentInput): Promise<Announcement> {
  const company = await requireCompany(trx, target.companyId);
  const content = parseAnnouncementContent(input, company.primaryLanguage);
  const announcement = await upsertAnnouncement(trx, target, content);
  await writeEvents(trx, [newEvent("content.announcement.updated", target.companyId, announcementEventData(target.scope, target.gameId, target.environmentId))]);
  return announcement;
}

async function clear(trx: Db, target: AnnouncementTarget): Promise<void> {
  // Clearing what is not there succeeds and, changing nothing, emits nothing.
  if (!(await deleteAnnouncementOf(trx, target))) return;
  await writeEvents(trx, [newEvent("content.announcement.cleared", target.companyId, announcementEventData(target.scope, target.gameId, target.environmentId))]);
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
