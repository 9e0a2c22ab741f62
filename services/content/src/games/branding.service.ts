// Branding use cases: admins read and set how a game's web support page looks; the change, its
// audit entry (the logo by hash and size) and its content.game.branding_updated event are written
// in one transaction. The gateway reads the branding with the game (GetGame) and the logo by hash.
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { notFound } from "@support/errors";
import { writeAudit, type ChangeOrigin } from "../audit/audit-log.ts";
import type { ContentDatabase } from "../database.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid } from "../common/validation.ts";
import { auditedBranding, brandingEventData, parseBranding, type BrandingInput, type GameBranding } from "./branding.ts";
import { findBranding, findLogo, saveBranding } from "./branding.repository.ts";
import { findLiveGameForUpdate } from "./game.repository.ts";
import { requireLiveGame } from "./game.service.ts";

type Db = Kysely<ContentDatabase>;

export async function getGameBranding(db: Db, companyId: string, gameId: string): Promise<GameBranding> {
  await requireLiveGame(db, companyId, gameId);
  return findBranding(db, companyId, gameId);
}

/** Sets the accent colour and scheme and replaces (or removes) the logo; a change that changes nothing records nothing. */
export async function setGameBranding(db: Db, companyId: string, gameId: string, input: BrandingInput, origin: ChangeOrigin): Promise<GameBranding> {
  const parsed = parseBranding(input);
  return inTransaction(db, async (trx) => {
    const game = isUuid(companyId) && isUuid(gameId) ? await findLiveGameForUpdate(trx, companyId, gameId) : undefined;
    if (!game) throw notFound("game not found");
    const before = await findBranding(trx, companyId, gameId, true);
    const logoAfter = parsed.logo === undefined ? before.logo : parsed.logo && parsed.logo.info;
    const unchanged = before.accentColor === parsed.accentColor && before.colorScheme === parsed.colorScheme && (before.logo?.sha256 ?? null) === (logoAfter?.sha256 ?? null);
    if (unchanged) return before;
    const after = await saveBranding(trx, companyId, gameId, parsed);
    await writeEvents(trx, [newEvent("content.game.branding_updated", companyId, brandingEventData(after))]);
    await writeAudit(trx, {
      action: "game.branding_changed", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress,
      target: { type: "game", id: gameId }, before: auditedBranding(before, game.name), after: auditedBranding(after, game.name),
    });
    return after;
  });
}

export async function getGameLogo(db: Db, gameId: string, sha256: string): Promise<{ data: Buffer; contentType: string }> {
  const logo = isUuid(gameId) && /^[0-9a-f]{64}$/.test(sha256) ? await findLogo(db, gameId.toLowerCase(), sha256) : undefined;
  if (!logo) throw notFound("logo not found");
  return logo;
}
